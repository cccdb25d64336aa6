// POST /v1beta/models/{model}:generateContent and :streamGenerateContent, answered the way the
// Gemini API answers them (camelCase, `alt=sse` frames), with the same faults as chat.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { firstProperty, planChat, planText, planTextChunks, type ChatPlan } from './chat-plan.js';
import { sendJson } from './http-io.js';
import { answeredByFault, isRecord, readSimRequest, writeFrames, type ProtocolErrors } from './sim-request.js';
import type { SimContext } from './sim-context.js';
import { countWords } from './tokens.js';

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
};

function error(
  res: ServerResponse,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  reason?: string,
): void {
  const details = reason
    ? [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'googleapis.com' }]
    : undefined;
  sendJson(
    res,
    code,
    { error: { code, message, status: STATUS[code] ?? 'UNKNOWN', ...(details && { details }) } },
    headers,
  );
}

const ERRORS: ProtocolErrors = {
  invalid: (res, message) => error(res, 400, message),
  tooLarge: (res) => error(res, 413, 'Request payload size exceeds the limit.'),
  serverError: (res) => error(res, 500, 'An internal error has occurred.'),
  rateLimited: (res, seconds) =>
    error(res, 429, 'Resource has been exhausted (e.g. check quota).', { 'retry-after': String(seconds) }),
};

const MID_STREAM_ERROR = `data: ${JSON.stringify({ error: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' } })}\n\n`;

/** `/v1beta/models/{model}:{method}` → the model and method, or undefined. */
export function matchContentRoute(
  path: string,
): { model: string; method: 'generateContent' | 'streamGenerateContent' } | undefined {
  const match = /^\/v1beta\/models\/(.+):(generateContent|streamGenerateContent)$/.exec(path);
  return match
    ? { model: decodeURIComponent(match[1]!), method: match[2] as 'generateContent' | 'streamGenerateContent' }
    : undefined;
}

function partsText(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  const texts: string[] = [];
  for (const p of parts) {
    if (!isRecord(p)) continue;
    if (typeof p.text === 'string') texts.push(p.text);
    const response = p.functionResponse ?? p.function_response;
    if (isRecord(response)) texts.push(JSON.stringify(response.response ?? {}));
  }
  return texts.join(' ');
}

/** The chat rule (3 per turn plus its words, 3 per request); a system instruction counts as one turn. */
function promptTokens(body: Record<string, unknown>): number {
  let tokens = 3;
  const system = body.systemInstruction ?? body.system_instruction;
  if (isRecord(system)) tokens += 3 + countWords(partsText(system.parts));
  for (const c of body.contents as { parts?: unknown }[]) tokens += 3 + countWords(partsText(c.parts));
  return tokens;
}

function lastUser(body: Record<string, unknown>): { text: string; toolResult: boolean } {
  const contents = Array.isArray(body.contents) ? (body.contents as { role?: unknown; parts?: unknown }[]) : [];
  const last = contents[contents.length - 1];
  if (!last || last.role === 'model') return { text: '', toolResult: false };
  const toolResult =
    Array.isArray(last.parts) &&
    last.parts.some((p) => isRecord(p) && (p.functionResponse ?? p.function_response) !== undefined);
  const texts = Array.isArray(last.parts)
    ? last.parts.filter((p) => isRecord(p) && typeof p.text === 'string').map((p) => (p as { text: string }).text)
    : [];
  return { text: texts.join(' '), toolResult };
}

/** `output` counts every candidate's tokens. */
function usageMetadata(plan: ChatPlan, output: number) {
  const usage: Record<string, number> = {
    promptTokenCount: plan.promptTokens,
    candidatesTokenCount: output,
    totalTokenCount: plan.promptTokens + output,
  };
  if (plan.cachedTokens > 0) usage.cachedContentTokenCount = plan.cachedTokens;
  return usage;
}

const finishReason = (plan: ChatPlan) => (plan.limited ? 'MAX_TOKENS' : 'STOP');

function callPart(plan: ChatPlan): object[] {
  const call = plan.toolCall;
  return call ? [{ functionCall: { name: call.name, args: JSON.parse(call.arguments) as object } }] : [];
}

/** `candidates` (candidateCount) copies of the same answer, each with its index. */
function response(
  plan: ChatPlan,
  model: string,
  parts: object[],
  finish: boolean,
  output: number,
  candidates: number,
): object {
  const list = Array.from({ length: candidates }, (_, index) => {
    const candidate: Record<string, unknown> = { content: { role: 'model', parts }, index };
    if (finish) candidate.finishReason = finishReason(plan);
    return candidate;
  });
  return {
    candidates: list,
    usageMetadata: usageMetadata(plan, output * candidates),
    modelVersion: model,
    responseId: `sim${plan.seq.toString(36)}`,
  };
}

function streamFrames(plan: ChatPlan, model: string, candidates: number): string[] {
  const data = (body: object) => `data: ${JSON.stringify(body)}\n\n`;
  if (plan.toolCall) return [data(response(plan, model, callPart(plan), true, plan.completionTokens, candidates))];
  const chunks = planTextChunks(plan);
  // Every frame carries the usage so far; the last adds the finish reason and the final counts.
  return chunks.map((text, i) => data(response(plan, model, [{ text }], i === chunks.length - 1, i + 1, candidates)));
}

export async function handleContent(
  req: IncomingMessage,
  res: ServerResponse,
  sim: SimContext,
  route: { model: string; method: string },
  sse: boolean,
): Promise<void> {
  if (sim.apiKey !== undefined && req.headers['x-goog-api-key'] !== sim.apiKey) {
    req.resume();
    return error(res, 400, 'API key not valid. Please pass a valid API key.', {}, 'API_KEY_INVALID');
  }
  const model = route.model.replace(/^models\//, '');
  const read = await readSimRequest(
    req,
    res,
    sim,
    ERRORS,
    () => model,
    (b) => lastUser(b).text,
  );
  if (!read) return;
  const { body, behaviour, clock } = read;
  if (!Array.isArray(body.contents) || body.contents.length === 0)
    return ERRORS.invalid(res, '* GenerateContentRequest.contents: contents is not specified');
  const config = isRecord(body.generationConfig)
    ? body.generationConfig
    : isRecord(body.generation_config)
      ? body.generation_config
      : {};
  const cap = config.maxOutputTokens ?? config.max_output_tokens;
  const candidates = config.candidateCount ?? config.candidate_count ?? 1;
  if (!Number.isInteger(candidates) || (candidates as number) < 1 || (candidates as number) > 8) {
    return ERRORS.invalid(res, '* GenerateContentRequest.generation_config.candidate_count: must be between 1 and 8');
  }
  const tools = (Array.isArray(body.tools) ? body.tools : []).flatMap((t) => {
    const declarations = isRecord(t) ? (t.functionDeclarations ?? t.function_declarations) : undefined;
    return Array.isArray(declarations)
      ? (declarations as { name?: unknown; parametersJsonSchema?: unknown; parameters?: unknown }[])
      : [];
  });
  const toolConfig = isRecord(body.toolConfig) ? body.toolConfig : {};
  const calling = isRecord(toolConfig.functionCallingConfig) ? toolConfig.functionCallingConfig : {};
  const allowed = Array.isArray(calling.allowedFunctionNames) ? calling.allowedFunctionNames : [];
  const last = lastUser(body);
  const plan = planChat(
    {
      promptTokens: promptTokens(body),
      maxTokens: typeof cap === 'number' ? cap : undefined,
      natural: true,
      tools: tools.map((d) => ({
        name: String(d.name),
        firstProperty: firstProperty(d.parametersJsonSchema ?? d.parameters),
      })),
      forcedTool: calling.mode === 'NONE' ? null : typeof allowed[0] === 'string' ? allowed[0] : undefined,
      answersToolResult: last.toolResult,
      lastUserText: last.text,
      model,
    },
    behaviour,
  );
  const stream = route.method === 'streamGenerateContent';
  clock.after(behaviour.latencyMs, () => {
    if (answeredByFault(res, behaviour, stream, ERRORS)) return;
    if (!stream) {
      const parts = plan.toolCall ? callPart(plan) : [{ text: planText(plan) }];
      return sendJson(res, 200, response(plan, model, parts, true, plan.completionTokens, candidates as number));
    }
    const frames = streamFrames(plan, model, candidates as number);
    if (!sse) {
      // Without alt=sse the method answers one JSON array of the same responses.
      return sendJson(
        res,
        200,
        frames.map((f) => JSON.parse(f.slice(6)) as unknown),
      );
    }
    // The last frame closes the stream (its finishReason and final usage).
    writeFrames(
      res,
      frames,
      behaviour,
      clock,
      Math.min(behaviour.faultAfterChunks, frames.length - 1),
      MID_STREAM_ERROR,
      frames.length - 1,
    );
  });
}
