import { invalidField, isRecord, nameToolResults, untranslatable } from '../canonical/helpers.js';
import type {
  CanonicalPart,
  CanonicalRequest,
  CanonicalResponse,
  CanonicalUsage,
  ChatProtocol,
  StopReason,
  ToolChoice,
} from '../canonical/types.js';
import { count } from '../openai/to-canonical.js';

/** generateContent fields may arrive in camelCase (the SDK) or snake_case (the REST docs): both are read. */
export function field(record: Record<string, unknown>, camel: string): unknown {
  if (record[camel] !== undefined) return record[camel];
  return record[camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
}

const READ = new Set([
  'contents',
  'systemInstruction',
  'system_instruction',
  'tools',
  'toolConfig',
  'tool_config',
  'generationConfig',
  'generation_config',
  'model',
]);
/** Fields that do not change the answer: dropped when the call is translated (docs/reference/surfaces.md). */
export const CONTENT_INERT_FIELDS = new Set(['safetySettings', 'safety_settings', 'labels']);
const GENERATION_READ = new Set([
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'stopSequences',
  'candidateCount',
  'responseMimeType',
  'responseJsonSchema',
  'responseSchema',
  'presencePenalty',
  'frequencyPenalty',
  'seed',
]);
const GENERATION_INERT = new Set(['thinkingConfig', 'responseModalities']);
const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** A generateContent request (validated by its schema) in canonical form; `stream` comes from the method in the path. */
export function contentRequestToCanonical(
  body: Record<string, unknown>,
  target: ChatProtocol,
  stream = false,
): CanonicalRequest {
  for (const name in body)
    if (!READ.has(name) && !CONTENT_INERT_FIELDS.has(name) && body[name] !== null) throw untranslatable(name, target);
  const request: CanonicalRequest = { system: [], messages: [], tools: [], stop: [], extras: {}, stream };
  const system = field(body, 'systemInstruction');
  if (isRecord(system) && Array.isArray(system.parts))
    request.system.push(system.parts.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join(''));
  const pending = new Map<string, string[]>(); // function name → ids of calls not yet answered
  (body.contents as Record<string, unknown>[]).forEach((content, i) => {
    const role = content.role === 'model' ? 'assistant' : 'user';
    const parts = contentParts(content.parts as unknown[], i, pending);
    const last = request.messages[request.messages.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else request.messages.push({ role, parts });
  });
  nameToolResults(request);
  if (Array.isArray(body.tools)) {
    body.tools.forEach((tool, i) => {
      if (!isRecord(tool)) return;
      for (const key in tool)
        if (key !== 'functionDeclarations' && key !== 'function_declarations')
          throw invalidField(`tools[${i}].${key}`, 'only function declarations can be translated');
      const declarations = field(tool, 'functionDeclarations');
      if (!Array.isArray(declarations)) return;
      for (const d of declarations as Record<string, unknown>[]) {
        const schema = field(d, 'parametersJsonSchema') ?? d.parameters;
        request.tools.push({
          name: String(d.name),
          description: typeof d.description === 'string' ? d.description : undefined,
          parameters: isRecord(schema) ? lowerTypes(schema) : { type: 'object', properties: {} },
        });
      }
    });
  }
  const toolConfig = field(body, 'toolConfig');
  const calling = isRecord(toolConfig) ? field(toolConfig, 'functionCallingConfig') : undefined;
  if (isRecord(calling)) request.toolChoice = contentToolChoice(calling);
  const config = field(body, 'generationConfig');
  if (isRecord(config)) readGenerationConfig(request, config, target);
  return request;
}

function readGenerationConfig(request: CanonicalRequest, raw: Record<string, unknown>, target: ChatProtocol): void {
  const config: Record<string, unknown> = {};
  for (const key in raw) {
    const name = camel(key);
    if (!GENERATION_READ.has(name) && !GENERATION_INERT.has(name) && raw[key] !== null)
      throw untranslatable(`generationConfig.${name}`, target);
    config[name] = raw[key];
  }
  if (typeof config.maxOutputTokens === 'number') request.maxTokens = config.maxOutputTokens;
  if (typeof config.temperature === 'number') request.temperature = config.temperature;
  if (typeof config.topP === 'number') request.topP = config.topP;
  if (typeof config.topK === 'number') request.extras.topK = { field: 'generationConfig.topK', value: config.topK };
  if (Array.isArray(config.stopSequences))
    request.stop = config.stopSequences.filter((s): s is string => typeof s === 'string');
  if (typeof config.candidateCount === 'number' && config.candidateCount > 1)
    request.extras.n = { field: 'generationConfig.candidateCount', value: config.candidateCount };
  for (const key of ['presencePenalty', 'frequencyPenalty', 'seed'] as const)
    if (typeof config[key] === 'number') request.extras[key] = { field: `generationConfig.${key}`, value: config[key] };
  if (config.responseMimeType === 'application/json') {
    const schema = config.responseJsonSchema ?? config.responseSchema;
    request.responseFormat = isRecord(schema)
      ? { type: 'json_schema', name: 'response', schema: lowerTypes(schema) }
      : { type: 'json_object' };
  }
}

/** OpenAPI-subset schemas write types in capitals (`OBJECT`); JSON Schema wants them lower-case. */
function lowerTypes(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in schema) {
    const value = schema[key];
    if (key === 'type' && typeof value === 'string') out[key] = value.toLowerCase();
    else if (key === 'properties' && isRecord(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isRecord(v) ? lowerTypes(v) : v]));
    else if (key === 'items' && isRecord(value)) out[key] = lowerTypes(value);
    else out[key] = value;
  }
  return out;
}

function contentToolChoice(config: Record<string, unknown>): ToolChoice | undefined {
  const names = field(config, 'allowedFunctionNames');
  if (config.mode === 'NONE') return { type: 'none' };
  if (config.mode === 'AUTO') return { type: 'auto' };
  if (config.mode === 'ANY' || config.mode === 'VALIDATED')
    return Array.isArray(names) && names.length === 1 && typeof names[0] === 'string'
      ? { type: 'tool', name: names[0] }
      : { type: 'required' };
  return undefined;
}

// generateContent calls usually carry no id: one is made from the call's position (`call_<turn>_<part>`),
// and a response without one answers the oldest open call of its function (PROTOCOLS.md §6.5).
function contentParts(parts: unknown[], turn: number, pending: Map<string, string[]>): CanonicalPart[] {
  const at = `contents[${turn}]`;
  const out: CanonicalPart[] = [];
  parts.forEach((raw, j) => {
    const part = raw as Record<string, unknown>;
    const where = `${at}.parts[${j}]`;
    if (part.thought === true) return; // a model's own reasoning: not sent to another protocol
    if (typeof part.text === 'string') {
      if (part.text !== '') out.push({ type: 'text', text: part.text });
      return;
    }
    const inline = field(part, 'inlineData');
    if (isRecord(inline)) {
      out.push({
        type: 'image',
        source: { kind: 'base64', mediaType: String(field(inline, 'mimeType') ?? ''), data: String(inline.data ?? '') },
      });
      return;
    }
    const file = field(part, 'fileData');
    if (isRecord(file)) {
      out.push({ type: 'image', source: { kind: 'url', url: String(field(file, 'fileUri') ?? '') } });
      return;
    }
    const call = field(part, 'functionCall');
    if (isRecord(call)) {
      const name = String(call.name ?? '');
      const id = typeof call.id === 'string' ? call.id : `call_${turn}_${j}`;
      pending.set(name, [...(pending.get(name) ?? []), id]);
      out.push({ type: 'tool_call', id, name, arguments: JSON.stringify(call.args ?? {}) });
      return;
    }
    const response = field(part, 'functionResponse');
    if (isRecord(response)) {
      const name = String(response.name ?? '');
      const queue = pending.get(name) ?? [];
      const id = typeof response.id === 'string' ? response.id : (queue.shift() ?? `call_${turn}_${j}`);
      const body = isRecord(response.response) ? response.response : {};
      const isError = body.error !== undefined && body.output === undefined;
      const value = isError
        ? body.error
        : body.output !== undefined && Object.keys(body).length === 1
          ? body.output
          : body;
      out.push({
        type: 'tool_result',
        id,
        name,
        content: typeof value === 'string' ? value : JSON.stringify(value),
        isError,
      });
      return;
    }
    throw invalidField(
      where,
      'only text, inlineData, fileData, functionCall and functionResponse parts can be translated',
    );
  });
  return out;
}

const FINISH: Record<string, StopReason> = { STOP: 'stop', MAX_TOKENS: 'length' };

export function contentStopReason(reason: unknown, calledTools: boolean): StopReason {
  if (typeof reason !== 'string') return 'stop';
  if (FINISH[reason] === 'stop' && calledTools) return 'tool_calls';
  return (
    FINISH[reason] ?? (/SAFETY|RECITATION|BLOCKLIST|PROHIBITED|SPII|IMAGE_/.test(reason) ? 'content_filter' : 'stop')
  );
}

export function contentUsageToCanonical(usage: unknown): Partial<CanonicalUsage> | undefined {
  if (!isRecord(usage)) return undefined;
  const thoughts = count(usage.thoughtsTokenCount);
  return {
    input: count(usage.promptTokenCount) + count(usage.toolUsePromptTokenCount),
    cacheRead: count(usage.cachedContentTokenCount),
    cacheWrite: 0,
    output: count(usage.candidatesTokenCount) + thoughts,
    reasoning: thoughts,
  };
}

/**
 * The parts of one generateContent response (a whole answer or one stream frame): text and calls.
 * A call without an id gets `call_<responseId>_<n>`, n counting the response's calls from `firstCall`.
 */
export function candidateParts(
  body: Record<string, unknown>,
  firstCall = 0,
): { parts: CanonicalPart[]; finishReason: unknown } {
  const candidate = Array.isArray(body.candidates) && isRecord(body.candidates[0]) ? body.candidates[0] : {};
  const content = isRecord(candidate.content) ? candidate.content : {};
  const parts: CanonicalPart[] = [];
  const responseId = String(field(body, 'responseId') ?? 'response');
  let calls = firstCall;
  for (const part of Array.isArray(content.parts) ? (content.parts as Record<string, unknown>[]) : []) {
    if (part.thought === true) continue;
    if (typeof part.text === 'string' && part.text !== '') parts.push({ type: 'text', text: part.text });
    const call = field(part, 'functionCall');
    if (isRecord(call))
      parts.push({
        type: 'tool_call',
        id: typeof call.id === 'string' ? call.id : `call_${responseId}_${calls++}`,
        name: String(call.name ?? ''),
        arguments: JSON.stringify(call.args ?? {}),
      });
  }
  return { parts, finishReason: field(candidate, 'finishReason') };
}

export function contentResponseToCanonical(body: unknown): CanonicalResponse {
  if (!isRecord(body) || !Array.isArray(body.candidates)) throw new Error('not a generateContent response');
  const { parts, finishReason } = candidateParts(body);
  const usage = contentUsageToCanonical(field(body, 'usageMetadata'));
  return {
    id: String(field(body, 'responseId') ?? ''),
    model: String(field(body, 'modelVersion') ?? ''),
    parts,
    stopReason: contentStopReason(
      finishReason,
      parts.some((p) => p.type === 'tool_call'),
    ),
    usage: usage && {
      input: usage.input ?? 0,
      cacheRead: usage.cacheRead ?? 0,
      cacheWrite: 0,
      output: usage.output ?? 0,
      reasoning: usage.reasoning ?? 0,
    },
  };
}
