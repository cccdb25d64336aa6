import { createHash } from 'node:crypto';
import { CLIENT_CODECS } from '../protocols/codecs.js';
import { MESSAGES_INERT_FIELDS } from '../protocols/anthropic/to-canonical.js';
import { CONTENT_INERT_FIELDS } from '../protocols/gemini/to-canonical.js';
import { OPENAI_INERT_FIELDS } from '../protocols/openai/to-canonical.js';
import { RESPONSES_INERT_FIELDS } from '../protocols/responses/to-canonical.js';
import type { ClientProtocol } from '../protocols/canonical/types.js';

/** Fields that never change an answer: left out of the key, so they never split it. */
const LEFT_OUT = new Set([
  'model',
  'stream',
  'stream_options',
  'user',
  'metadata',
  'store',
  'service_tier',
  'prompt_cache_key',
  'safety_identifier',
  'labels',
  'cache_control',
  'include',
  'provider',
]);

// Fields the canonical form drops but that may change the answer (reasoning effort, thinking,
// safety settings): their values join the key as sent.
const INERT: Readonly<Record<ClientProtocol, ReadonlySet<string>>> = {
  openai: OPENAI_INERT_FIELDS,
  anthropic: MESSAGES_INERT_FIELDS,
  gemini: CONTENT_INERT_FIELDS,
  responses: RESPONSES_INERT_FIELDS,
};
const GEMINI_CONFIG_INERT = ['thinkingConfig', 'responseModalities'];

/**
 * The cache key of a text call: its account, the model id as sent and the canonical request (the
 * form every text surface translates through), normalised (key order and whitespace do not count),
 * `stream` and the fields of LEFT_OUT not in it. Undefined when the request is one the canonical
 * form cannot carry: such a call bypasses the cache rather than risk two requests sharing a key.
 */
export function textCacheKey(
  userId: string,
  protocol: ClientProtocol,
  model: string,
  body: Record<string, unknown>,
): string | undefined {
  let canonical: Record<string, unknown>;
  try {
    const target = protocol === 'responses' ? 'openai' : protocol;
    canonical = CLIENT_CODECS[protocol].requestToCanonical(body, target) as unknown as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const inert: Record<string, unknown> = {};
  for (const field of INERT[protocol]) if (!LEFT_OUT.has(field) && body[field] != null) inert[field] = body[field];
  const config = body.generationConfig as Record<string, unknown> | undefined;
  if (protocol === 'gemini' && config)
    for (const field of GEMINI_CONFIG_INERT) if (config[field] != null) inert[field] = config[field];
  const { stream: _stream, ...request } = canonical;
  return digest(userId, 'text', model, { request, inert });
}

/** The cache key of an embeddings call: its account, surface, model id as sent and body (without `user`), normalised. */
export function embeddingsCacheKey(
  userId: string,
  surface: string,
  model: string,
  body: Record<string, unknown>,
): string {
  const rest: Record<string, unknown> = {};
  for (const field in body) if (!LEFT_OUT.has(field)) rest[field] = body[field];
  return digest(userId, `embeddings:${surface}`, model, rest);
}

function digest(userId: string, kind: string, model: string, value: unknown): string {
  return createHash('sha256')
    .update(userId)
    .update('\n')
    .update(kind)
    .update('\n')
    .update(model)
    .update('\n')
    .update(stableJson(value))
    .digest('base64url');
}

/** JSON with object keys sorted at every level and undefined fields left out: equal values, equal text. */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : stableJson(v))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const fields: string[] = [];
  for (const k of Object.keys(record).sort()) {
    if (record[k] === undefined) continue;
    fields.push(`${JSON.stringify(k)}:${stableJson(record[k])}`);
  }
  return `{${fields.join(',')}}`;
}
