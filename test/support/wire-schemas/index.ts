import type { z } from 'zod';
import type { ClientProtocol } from '../../../shared/protocols/canonical/types.js';
import { generateContentResponse, geminiOrderViolation } from './gemini.js';
import { messagesOrderViolation, messagesResponse, messagesStreamEvent } from './messages.js';
import { chatCompletion, chatCompletionChunk, chatOrderViolation } from './openai-chat.js';
import { responseObject, responsesOrderViolation, responsesStreamEvent } from './responses.js';

/**
 * Strict checks of an answer against its protocol's published shape, for every surface and every
 * translation pair: `answerViolations` for a whole JSON answer, `streamViolations` for the SSE text
 * of a streamed one (each event's shape, the event names, the order, the end marker). Each returns
 * the problems found, empty when the answer is exactly what the real API would send.
 */
const ANSWERS: Record<ClientProtocol, z.ZodType> = {
  openai: chatCompletion,
  responses: responseObject,
  anthropic: messagesResponse,
  gemini: generateContentResponse,
};

function issues(schema: z.ZodType, value: unknown, where: string): string[] {
  const parsed = schema.safeParse(value);
  return parsed.success
    ? []
    : parsed.error.issues.map((i) => `${where}: ${i.path.join('.') || '(root)'}: ${i.message}`);
}

export function answerViolations(protocol: ClientProtocol, body: unknown): string[] {
  return issues(ANSWERS[protocol], body, 'answer');
}

interface SseFrame {
  event: string | undefined;
  data: string;
}

export function sseFrames(text: string): SseFrame[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((f) => f.trim() !== '')
    .map((frame) => {
      let event: string | undefined;
      const data: string[] = [];
      for (const line of frame.split(/\r?\n/)) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      return { event, data: data.join('\n') };
    });
}

export function streamViolations(protocol: ClientProtocol, text: string): string[] {
  const frames = sseFrames(text);
  const problems: string[] = [];
  if (protocol === 'openai') {
    if (frames.at(-1)?.data !== '[DONE]') problems.push('the stream does not end with data: [DONE]');
    const chunks = frames.filter((f) => f.data !== '[DONE]').map((f) => JSON.parse(f.data) as unknown);
    chunks.forEach((c, i) => {
      problems.push(...issues(chatCompletionChunk, c, `chunk ${i}`));
    });
    if (problems.length === 0) pushIf(problems, chatOrderViolation(chunks as z.infer<typeof chatCompletionChunk>[]));
    return problems;
  }
  if (protocol === 'gemini') {
    const values = frames.map((f) => JSON.parse(f.data) as unknown);
    values.forEach((v, i) => {
      problems.push(...issues(generateContentResponse, v, `frame ${i}`));
    });
    if (problems.length === 0)
      pushIf(problems, geminiOrderViolation(values as z.infer<typeof generateContentResponse>[]));
    return problems;
  }
  const schema = protocol === 'anthropic' ? messagesStreamEvent : responsesStreamEvent;
  const events = frames.map((f, i) => {
    const value = JSON.parse(f.data) as { type?: unknown };
    if (f.event !== value.type) problems.push(`event ${i}: SSE name ${f.event} but type ${String(value.type)}`);
    problems.push(...issues(schema, value, `event ${i}`));
    return value;
  });
  if (problems.length > 0) return problems;
  pushIf(
    problems,
    protocol === 'anthropic'
      ? messagesOrderViolation(events as z.infer<typeof messagesStreamEvent>[])
      : responsesOrderViolation(events as z.infer<typeof responsesStreamEvent>[]),
  );
  return problems;
}

function pushIf(list: string[], problem: string | undefined): void {
  if (problem) list.push(problem);
}
