import { GatewayError } from '../../errors.js';
import type {
  CanonicalPart,
  CanonicalRequest,
  CanonicalUsage,
  ChatProtocol,
  ImageSource,
  TokenUsage,
} from './types.js';

export const PROTOCOL_NAMES: Record<ChatProtocol, string> = {
  openai: 'chat-completions',
  anthropic: 'Messages',
  gemini: 'generateContent',
};

/** A request field the upstream's protocol cannot express, where dropping it would change the answer. */
export function untranslatable(field: string, target: ChatProtocol): GatewayError {
  return new GatewayError(
    'unsupported_parameter',
    400,
    `'${field}' cannot be sent to this model: its upstream speaks the ${PROTOCOL_NAMES[target]} protocol, which has no equivalent`,
    { param: field },
  );
}

export function invalidField(field: string, message: string): GatewayError {
  return new GatewayError('invalid_request', 400, `invalid value for '${field}': ${message}`, { param: field });
}

/** The usage billing reads: input includes cache reads and writes; cached = reads (priced at the cached rate). */
export function billableUsage(usage: CanonicalUsage): TokenUsage {
  return { inputTokens: usage.input, outputTokens: usage.output, cachedTokens: usage.cacheRead };
}

export function mergeUsage(into: CanonicalUsage, update: Partial<CanonicalUsage>): CanonicalUsage {
  return {
    input: update.input ?? into.input,
    cacheRead: update.cacheRead ?? into.cacheRead,
    cacheWrite: update.cacheWrite ?? into.cacheWrite,
    output: update.output ?? into.output,
    reasoning: update.reasoning ?? into.reasoning,
  };
}

const DATA_URI = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)(?:;[^,;]*)*;base64,(.*)$/is;

/** An image reference as a URL or inline bytes; a data URI is split into media type and base64. */
export function imageSource(url: string): ImageSource {
  const match = DATA_URI.exec(url);
  if (match) return { kind: 'base64', mediaType: match[1]!.toLowerCase(), data: match[2]! };
  return { kind: 'url', url };
}

export function dataUri(source: { mediaType: string; data: string }): string {
  return `data:${source.mediaType};base64,${source.data}`;
}

/** Tool-call arguments as an object (Messages `input`, generateContent `args`); `""` is `{}`. */
export function argumentsObject(text: string, field: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidField(field, 'tool-call arguments must be JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalidField(field, 'tool-call arguments must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** Tool-call arguments from a stream, which need not be valid JSON until the end: never throws. */
export function argumentsObjectLoose(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text || '{}');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { value: parsed };
  } catch {
    return {};
  }
}

/** Messages tool ids must match ^[a-zA-Z0-9_-]+$: other characters map to `_` (the same id maps the same way both ways). */
export function safeToolId(id: string): string {
  const safe = id.replace(/[^a-zA-Z0-9_-]/g, '_');
  return safe === '' ? 'call' : safe;
}

/** Fills tool-result names from the calls they answer (generateContent needs the name; the others pair by id). */
export function nameToolResults(request: CanonicalRequest): void {
  const names = new Map<string, string>();
  for (const message of request.messages) {
    for (const part of message.parts) {
      if (part.type === 'tool_call') names.set(part.id, part.name);
      else if (part.type === 'tool_result' && part.name === '') part.name = names.get(part.id) ?? '';
    }
  }
}

/** The plain text of some parts (the estimate when an upstream reports no usage). */
export function textOf(parts: readonly CanonicalPart[]): string {
  let text = '';
  for (const part of parts) if (part.type === 'text') text += part.text;
  return text;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

let counter = 0;
/** A stable, unique id for a call or response the upstream gave none (generateContent calls). */
export function syntheticId(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${(++counter).toString(36)}`;
}
