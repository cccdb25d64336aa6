// POST /v1/chat/completions, answered the way OpenAI answers it, with injectable faults.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BehaviourError, parseDirectives, type ResolvedBehaviour } from './behaviour.js';
import { readJsonBody, ResponseClock, sendJson } from './http-io.js';
import { completionBody, planCompletion } from './openai-chat-response.js';
import { streamCompletion } from './openai-chat-stream.js';
import {
  invalidRequest,
  openAiError,
  rateLimited,
  sendOpenAiError,
  serverError,
  unauthorized,
} from './openai-errors.js';
import type { SimContext } from './sim-context.js';
import { countPromptTokens, lastUserText } from './tokens.js';
import { firstProperty, planChat, type ChatAsk } from './chat-plan.js';

/** The request in the neutral terms the plan decides from. */
function chatAsk(request: ChatRequest, behaviour: ResolvedBehaviour): ChatAsk {
  const choice = request.toolChoice;
  const named = (choice as { function?: { name?: unknown } } | null)?.function?.name;
  const last = request.messages[request.messages.length - 1] as { role?: unknown } | undefined;
  return {
    promptTokens: countPromptTokens(request.messages),
    // An older OpenAI-compatible server reads only max_tokens: max_completion_tokens does not cap it.
    maxTokens: behaviour.ignoresMaxCompletionTokens
      ? request.maxTokensField
      : (request.maxCompletionTokens ?? request.maxTokensField),
    natural: behaviour.naturalLength,
    tools: request.tools.map((t) => {
      const fn = (t as { function?: { name?: unknown; parameters?: unknown } }).function;
      return { name: String(fn?.name ?? ''), firstProperty: firstProperty(fn?.parameters) };
    }),
    forcedTool: choice === 'none' ? null : typeof named === 'string' ? named : undefined,
    answersToolResult: last?.role === 'tool',
    lastUserText: lastUserText(request.messages),
    model: request.model,
  };
}

interface ChatRequest {
  model: string;
  messages: unknown[];
  tools: unknown[];
  toolChoice: unknown;
  stream: boolean;
  includeUsage: boolean;
  maxCompletionTokens: number | undefined;
  maxTokensField: number | undefined;
  /** Choices to generate (`n`), each as long as the plan says. */
  choices: number;
}

type Parsed = { ok: true; request: ChatRequest } | { ok: false; message: string; param: string };

const missing = (param: string): Parsed => ({ ok: false, message: `Missing required parameter: '${param}'.`, param });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseChatRequest(body: Record<string, unknown>): Parsed {
  const { model, messages, stream, stream_options: streamOptions } = body;
  if (typeof model !== 'string' || model === '') return missing('model');
  if (!Array.isArray(messages)) return missing('messages');
  const caps: Partial<Record<'max_completion_tokens' | 'max_tokens', number>> = {};
  for (const param of ['max_completion_tokens', 'max_tokens'] as const) {
    const value = body[param];
    if (value === undefined || value === null) continue;
    if (!Number.isInteger(value) || (value as number) < 1) {
      return { ok: false, message: `Invalid '${param}': expected an integer of at least 1.`, param };
    }
    caps[param] = value as number;
  }
  const n = body.n ?? 1;
  if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > 128)
    return { ok: false, message: "Invalid 'n': expected an integer from 1 to 128.", param: 'n' };
  const includeUsage = isRecord(streamOptions) && streamOptions.include_usage === true;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  return {
    ok: true,
    request: {
      model,
      messages,
      tools,
      toolChoice: body.tool_choice,
      stream: stream === true,
      includeUsage,
      maxCompletionTokens: caps.max_completion_tokens,
      maxTokensField: caps.max_tokens,
      choices: n as number,
    },
  };
}

function hasValidKey(req: IncomingMessage, res: ServerResponse, apiKey: string | undefined): boolean {
  if (apiKey === undefined) return true;
  const header = req.headers.authorization;
  if (header === `Bearer ${apiKey}`) return true;
  unauthorized(res, header !== undefined);
  return false;
}

function respond(res: ServerResponse, request: ChatRequest, behaviour: ResolvedBehaviour, clock: ResponseClock): void {
  switch (behaviour.fault) {
    case 'hang':
      return; // Never answer; the stats and clock let go when the client closes.
    case 'error500':
      return serverError(res);
    case 'error429':
      return rateLimited(res, behaviour.retryAfterSeconds);
    case 'disconnect':
      if (!request.stream) return void res.destroy();
      break;
    case 'errorMidStream':
      // A whole-body answer has no "middle"; failing it outright is the closest equivalent.
      if (!request.stream) {
        return sendOpenAiError(res, 500, openAiError('upstream exploded', 'server_error', null, 'internal_error'));
      }
      break;
    case 'none':
      break;
  }
  const plan = planCompletion(request.model, planChat(chatAsk(request, behaviour), behaviour), request.choices);
  if (behaviour.contentFilter) plan.finishReason = 'content_filter';
  if (request.stream) streamCompletion(res, plan, behaviour, request.includeUsage, clock);
  else sendJson(res, 200, completionBody(plan));
}

export async function handleChatCompletions(req: IncomingMessage, res: ServerResponse, sim: SimContext): Promise<void> {
  if (!hasValidKey(req, res, sim.apiKey)) return;
  const body = await readJsonBody(req);
  if (!body.ok && body.reason === 'too-large') {
    return sendOpenAiError(res, 413, openAiError('Request body too large.', 'invalid_request_error'));
  }
  if (!body.ok) {
    return invalidRequest(res, 'We could not parse the JSON body of your request. The API expects a JSON payload.');
  }
  if (!isRecord(body.value)) return invalidRequest(res, 'The request body must be a JSON object.');
  const parsed = parseChatRequest(body.value);
  sim.stats.recordBody(parsed.ok ? parsed.request.model : undefined, body.value, body.text);
  if (!parsed.ok) return invalidRequest(res, parsed.message, parsed.param);
  const { request } = parsed;
  let behaviour: ResolvedBehaviour;
  try {
    behaviour = sim.behaviours.resolve(request.model, parseDirectives(lastUserText(request.messages)));
  } catch (error) {
    if (error instanceof BehaviourError) return invalidRequest(res, error.message, 'messages');
    throw error;
  }
  if (
    request.maxCompletionTokens !== undefined &&
    request.maxTokensField !== undefined &&
    !behaviour.ignoresMaxCompletionTokens
  ) {
    return invalidRequest(
      res,
      "Setting 'max_tokens' and 'max_completion_tokens' at the same time is not supported.",
      'max_tokens',
    );
  }
  const clock = new ResponseClock(res);
  clock.after(behaviour.latencyMs, () => respond(res, request, behaviour, clock));
}
