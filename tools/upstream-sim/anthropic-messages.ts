// POST /v1/messages, answered the way the Messages API answers it, with the same faults as chat.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { argumentFragments, firstProperty, planChat, planText, planTextChunks, type ChatPlan } from './chat-plan.js';
import { sendJson } from './http-io.js';
import { answeredByFault, isRecord, readSimRequest, writeFrames, type ProtocolErrors } from './sim-request.js';
import type { SimContext } from './sim-context.js';
import { countWords } from './tokens.js';

function error(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { type: 'error', error: { type, message }, request_id: 'req_sim' }, headers);
}

const ERRORS: ProtocolErrors = {
  invalid: (res, message) => error(res, 400, 'invalid_request_error', message),
  tooLarge: (res) => error(res, 413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.'),
  serverError: (res) => error(res, 500, 'api_error', 'Internal server error'),
  rateLimited: (res, seconds) =>
    error(res, 429, 'rate_limit_error', 'Number of requests has exceeded your rate limit.', {
      'retry-after': String(seconds),
    }),
};

const MID_STREAM_ERROR = `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`;

function blocksText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'tool_result') texts.push(blocksText(block.content));
  }
  return texts.join(' ');
}

/** The chat rule (3 per turn plus its words, 3 per request); a system prompt counts as one turn. */
function promptTokens(body: Record<string, unknown>): number {
  let tokens = 3;
  if (body.system !== undefined) tokens += 3 + countWords(blocksText(body.system));
  for (const m of body.messages as { content?: unknown }[]) tokens += 3 + countWords(blocksText(m.content));
  return tokens;
}

function lastUser(body: Record<string, unknown>): { text: string; toolResult: boolean } {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown; content?: unknown }[]) : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    const toolResult = Array.isArray(m.content) && m.content.some((b) => isRecord(b) && b.type === 'tool_result');
    return { text: blocksText(m.content), toolResult };
  }
  return { text: '', toolResult: false };
}

function usage(plan: ChatPlan, output: number) {
  return {
    input_tokens: plan.promptTokens - plan.cachedTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: plan.cachedTokens,
    output_tokens: output,
  };
}

const stopReason = (plan: ChatPlan) => (plan.toolCall ? 'tool_use' : plan.limited ? 'max_tokens' : 'end_turn');

function content(plan: ChatPlan): object[] {
  const call = plan.toolCall;
  return call
    ? [
        {
          type: 'tool_use',
          id: call.id.replace('call_', 'toolu_'),
          name: call.name,
          input: JSON.parse(call.arguments) as object,
        },
      ]
    : [{ type: 'text', text: planText(plan) }];
}

const frame = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;

function streamFrames(plan: ChatPlan, model: string): { frames: string[]; faultAt: number } {
  const id = `msg_sim${plan.seq.toString(36)}`;
  const frames = [
    frame('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usage(plan, 1),
      },
    }),
  ];
  const call = plan.toolCall;
  if (call) {
    frames.push(
      frame('content_block_start', {
        index: 0,
        content_block: { type: 'tool_use', id: call.id.replace('call_', 'toolu_'), name: call.name, input: {} },
      }),
    );
    frames.push(frame('ping', {}));
    frames.push(frame('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '' } }));
    for (const f of argumentFragments(call.arguments))
      frames.push(frame('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: f } }));
  } else {
    frames.push(frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    frames.push(frame('ping', {}));
    for (const text of planTextChunks(plan))
      frames.push(frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }));
  }
  frames.push(frame('content_block_stop', { index: 0 }));
  frames.push(
    frame('message_delta', {
      delta: { stop_reason: stopReason(plan), stop_sequence: null },
      usage: { output_tokens: plan.completionTokens },
    }),
  );
  frames.push(frame('message_stop', {}));
  return { frames, faultAt: 3 };
}

export async function handleMessages(req: IncomingMessage, res: ServerResponse, sim: SimContext): Promise<void> {
  if (sim.apiKey !== undefined && req.headers['x-api-key'] !== sim.apiKey) {
    req.resume();
    return error(res, 401, 'authentication_error', 'invalid x-api-key');
  }
  if (!req.headers['anthropic-version']) {
    req.resume();
    return error(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
  }
  const read = await readSimRequest(
    req,
    res,
    sim,
    ERRORS,
    (b) => (typeof b.model === 'string' ? b.model : undefined),
    (b) => lastUser(b).text,
  );
  if (!read) return;
  const { body, behaviour, clock } = read;
  if (typeof body.model !== 'string' || body.model === '') return ERRORS.invalid(res, 'model: Field required');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return ERRORS.invalid(res, 'messages: Field required');
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1)
    return ERRORS.invalid(res, 'max_tokens: Field required');
  const model = body.model;
  const stream = body.stream === true;
  const last = lastUser(body);
  const choice = isRecord(body.tool_choice) ? body.tool_choice : undefined;
  const plan = planChat(
    {
      promptTokens: promptTokens(body),
      maxTokens: body.max_tokens as number,
      natural: true,
      tools: (Array.isArray(body.tools) ? body.tools : []).map((t) => ({
        name: String((t as { name?: unknown }).name),
        firstProperty: firstProperty((t as { input_schema?: unknown }).input_schema),
      })),
      forcedTool: choice?.type === 'none' ? null : choice?.type === 'tool' ? String(choice.name) : undefined,
      answersToolResult: last.toolResult,
      lastUserText: last.text,
      model: String(model),
    },
    behaviour,
  );
  clock.after(behaviour.latencyMs, () => {
    if (answeredByFault(res, behaviour, stream, ERRORS)) return;
    if (!stream) {
      return sendJson(res, 200, {
        id: `msg_sim${plan.seq.toString(36)}`,
        type: 'message',
        role: 'assistant',
        model,
        content: content(plan),
        stop_reason: stopReason(plan),
        stop_sequence: null,
        usage: usage(plan, plan.completionTokens),
      });
    }
    const { frames, faultAt } = streamFrames(plan, model);
    // The last three frames close the stream: content_block_stop, message_delta (the usage), message_stop.
    writeFrames(
      res,
      frames,
      behaviour,
      clock,
      faultAt + Math.min(behaviour.faultAfterChunks, frames.length - faultAt - 4),
      MID_STREAM_ERROR,
      frames.length - 3,
    );
  });
}
