import { expect } from 'vitest';

/**
 * Raw clients of the three text surfaces, written from the protocols' documentation (not from the
 * gateway's code): each builds its protocol's request and reads its protocol's answer, checking
 * that the answer is well formed as it goes.
 */
export type Protocol = 'openai' | 'anthropic' | 'gemini';
export const PROTOCOLS: Protocol[] = ['openai', 'anthropic', 'gemini'];

export const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

export interface Ask {
  model: string;
  text: string;
  stream: boolean;
  tools?: boolean;
}

export function surfaceRequest(
  protocol: Protocol,
  base: string,
  key: string,
  ask: Ask,
): { url: string; init: RequestInit } {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  let url: string;
  let body: Record<string, unknown>;
  if (protocol === 'openai') {
    headers.authorization = `Bearer ${key}`;
    url = `${base}/v1/chat/completions`;
    body = { model: ask.model, messages: [{ role: 'user', content: ask.text }], stream: ask.stream };
    if (ask.stream) body.stream_options = { include_usage: true };
    if (ask.tools) body.tools = [{ type: 'function', function: WEATHER_TOOL }];
  } else if (protocol === 'anthropic') {
    headers['x-api-key'] = key;
    headers['anthropic-version'] = '2023-06-01';
    url = `${base}/native-messages/v1/messages`;
    body = { model: ask.model, max_tokens: 100, messages: [{ role: 'user', content: ask.text }], stream: ask.stream };
    if (ask.tools)
      body.tools = [
        { name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, input_schema: WEATHER_TOOL.parameters },
      ];
  } else {
    headers['x-goog-api-key'] = key;
    url = `${base}/native-content/v1beta/models/${ask.model}:${ask.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
    body = { contents: [{ role: 'user', parts: [{ text: ask.text }] }] };
    if (ask.tools)
      body.tools = [
        {
          functionDeclarations: [
            {
              name: WEATHER_TOOL.name,
              description: WEATHER_TOOL.description,
              parametersJsonSchema: WEATHER_TOOL.parameters,
            },
          ],
        },
      ];
  }
  return { url, init: { method: 'POST', headers, body: JSON.stringify(body) } };
}

export interface Answer {
  text: string;
  toolCall: { name: string; args: Record<string, unknown> } | undefined;
  finish: string;
  /** As the protocol reports it, normalised: all input (cache included), cached, output. */
  usage: { input: number; cached: number; output: number };
}

interface Frame {
  event: string | undefined;
  data: string;
}

export function frames(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      return { event, data: data.join('\n') };
    });
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export async function readAnswer(protocol: Protocol, res: Response, stream: boolean): Promise<Answer> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  if (!stream) {
    expect(res.headers.get('content-type')).toContain('application/json');
    return readWhole(protocol, JSON.parse(text) as Json);
  }
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const all = frames(text);
  if (protocol === 'openai') return readOpenAiStream(all);
  if (protocol === 'anthropic') return readMessagesStream(all);
  return readContentStream(all);
}

function readWhole(protocol: Protocol, body: Json): Answer {
  if (protocol === 'openai') {
    expect(body.object).toBe('chat.completion');
    const message = body.choices[0].message;
    const call = message.tool_calls?.[0];
    return {
      text: message.content ?? '',
      toolCall: call && { name: call.function.name, args: JSON.parse(call.function.arguments) },
      finish: body.choices[0].finish_reason,
      usage: {
        input: body.usage.prompt_tokens,
        cached: body.usage.prompt_tokens_details?.cached_tokens ?? 0,
        output: body.usage.completion_tokens,
      },
    };
  }
  if (protocol === 'anthropic') {
    expect(body.type).toBe('message');
    expect(body.role).toBe('assistant');
    const texts = body.content.filter((b: Json) => b.type === 'text').map((b: Json) => b.text);
    const call = body.content.find((b: Json) => b.type === 'tool_use');
    if (call) expect(call.id).toMatch(/^[a-zA-Z0-9_-]+$/);
    const u = body.usage;
    return {
      text: texts.join(''),
      toolCall: call && { name: call.name, args: call.input },
      finish: body.stop_reason,
      usage: {
        input: u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0),
        cached: u.cache_read_input_tokens ?? 0,
        output: u.output_tokens,
      },
    };
  }
  const candidate = body.candidates[0];
  expect(candidate.content.role).toBe('model');
  const parts: Json[] = candidate.content.parts;
  const call = parts.find((p) => p.functionCall)?.functionCall;
  const u = body.usageMetadata;
  return {
    text: parts
      .filter((p) => typeof p.text === 'string')
      .map((p) => p.text)
      .join(''),
    toolCall: call && { name: call.name, args: call.args },
    finish: candidate.finishReason,
    usage: {
      input: u.promptTokenCount,
      cached: u.cachedContentTokenCount ?? 0,
      output: u.candidatesTokenCount + (u.thoughtsTokenCount ?? 0),
    },
  };
}

function readOpenAiStream(all: Frame[]): Answer {
  expect(all.at(-1)?.data).toBe('[DONE]');
  let text = '';
  let finish = '';
  let usage: Answer['usage'] | undefined;
  const calls = new Map<number, { name: string; args: string }>();
  all.slice(0, -1).forEach((frame, i) => {
    expect(frame.event).toBeUndefined();
    const chunk = JSON.parse(frame.data) as Json;
    expect(chunk.object).toBe('chat.completion.chunk');
    if (chunk.usage)
      usage = {
        input: chunk.usage.prompt_tokens,
        cached: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0,
        output: chunk.usage.completion_tokens,
      };
    const choice = chunk.choices[0];
    if (!choice) return;
    if (i === 0) expect(choice.delta.role).toBe('assistant');
    if (typeof choice.delta.content === 'string') text += choice.delta.content;
    for (const call of choice.delta.tool_calls ?? []) {
      if (call.id) {
        expect(call.type).toBe('function');
        calls.set(call.index, { name: call.function.name, args: call.function.arguments ?? '' });
      } else calls.get(call.index)!.args += call.function.arguments;
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  });
  const call = calls.get(0);
  return { text, toolCall: call && { name: call.name, args: JSON.parse(call.args) }, finish, usage: usage! };
}

function readMessagesStream(all: Frame[]): Answer {
  const types = all.map((f) => f.event);
  expect(types[0]).toBe('message_start');
  expect(types.at(-1)).toBe('message_stop');
  let text = '';
  let finish = '';
  let input = 0;
  let cached = 0;
  let output = 0;
  const blocks = new Map<number, { type: string; name?: string; json: string; open: boolean }>();
  for (const frame of all) {
    const data = JSON.parse(frame.data) as Json;
    expect(data.type).toBe(frame.event);
    if (data.type === 'message_start') {
      const u = data.message.usage;
      input = u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
      cached = u.cache_read_input_tokens ?? 0;
    } else if (data.type === 'content_block_start') {
      expect(blocks.has(data.index)).toBe(false);
      blocks.set(data.index, { type: data.content_block.type, name: data.content_block.name, json: '', open: true });
    } else if (data.type === 'content_block_delta') {
      const block = blocks.get(data.index)!;
      expect(block.open).toBe(true);
      if (data.delta.type === 'text_delta') text += data.delta.text;
      else block.json += data.delta.partial_json;
    } else if (data.type === 'content_block_stop') {
      blocks.get(data.index)!.open = false;
    } else if (data.type === 'message_delta') {
      finish = data.delta.stop_reason;
      const u = data.usage;
      output = u.output_tokens;
      if (u.input_tokens != null)
        input = u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
      if (u.cache_read_input_tokens != null) cached = u.cache_read_input_tokens;
    }
  }
  for (const block of blocks.values()) expect(block.open).toBe(false);
  const call = [...blocks.values()].find((b) => b.type === 'tool_use');
  return {
    text,
    toolCall: call && { name: call.name!, args: JSON.parse(call.json || '{}') },
    finish,
    usage: { input, cached, output },
  };
}

function readContentStream(all: Frame[]): Answer {
  let text = '';
  let finish = '';
  let call: Answer['toolCall'];
  let usage: Answer['usage'] | undefined;
  all.forEach((frame, i) => {
    expect(frame.event).toBeUndefined();
    const body = JSON.parse(frame.data) as Json;
    const candidate = body.candidates[0];
    for (const part of candidate.content.parts) {
      if (typeof part.text === 'string') text += part.text;
      if (part.functionCall) call = { name: part.functionCall.name, args: part.functionCall.args };
    }
    if (candidate.finishReason) {
      expect(i).toBe(all.length - 1);
      finish = candidate.finishReason;
    }
    const u = body.usageMetadata;
    if (u)
      usage = {
        input: u.promptTokenCount,
        cached: u.cachedContentTokenCount ?? 0,
        output: u.candidatesTokenCount + (u.thoughtsTokenCount ?? 0),
      };
  });
  expect(finish).not.toBe('');
  return { text, toolCall: call, finish, usage: usage! };
}

/** The finish reason each protocol gives a natural end and a tool call. */
export const FINISH = {
  openai: { stop: 'stop', tool: 'tool_calls' },
  anthropic: { stop: 'end_turn', tool: 'tool_use' },
  gemini: { stop: 'STOP', tool: 'STOP' },
} as const;
