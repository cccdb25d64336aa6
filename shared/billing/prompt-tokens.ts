import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import type { CatalogModel } from '../catalog/index.js';
import type { ChatRequest } from '../protocols/openai/chat-request.js';

/**
 * An upper bound of a chat prompt's input tokens, for the reservation taken before the upstream
 * call (so a cap or balance admits about as many calls as it can pay for, not one call per several
 * kilobytes of JSON). Counted once per call with a real tokenizer (gpt-tokenizer):
 * - `o200k` (default; GPT-4o and later) and `cl100k` (GPT-4, GPT-3.5) count exactly as OpenAI does;
 * - `other` (Claude, Gemini, Llama… whose tokenizers are not public or differ) is the o200k count
 *   times OTHER_TOKENIZER_FACTOR, a margin those tokenizers stay under for text and code.
 * Each message adds MESSAGE_OVERHEAD (role and separators) and the reply primer REPLY_PRIMER, as
 * OpenAI documents; tool definitions count as their JSON; an image part counts IMAGE_TOKENS (the
 * most a high-detail image costs on current OpenAI models). The bound never exceeds the body's
 * byte count, which was the bound before (a byte-level BPE token is at least one byte).
 * What the upstream then reports is what is charged: the overspend past a cap is zero when the
 * upstream tokenizes as estimated, and at most the estimate's error otherwise.
 */
export const MESSAGE_OVERHEAD = 4;
export const REPLY_PRIMER = 3;
export const IMAGE_TOKENS = 1_600;
export const OTHER_TOKENIZER_FACTOR = 1.5;

type Counter = (text: string) => number;
// Loaded in the background at start (milliseconds); a cl100k call before that counts with o200k.
let cl100k: Counter | undefined;
void import('gpt-tokenizer/encoding/cl100k_base').then((m) => (cl100k = m.countTokens));

function counterFor(model: CatalogModel): { count: Counter; factor: number } {
  if (model.tokenizer === 'cl100k' && cl100k) return { count: cl100k, factor: 1 };
  return { count: o200k, factor: model.tokenizer === 'other' ? OTHER_TOKENIZER_FACTOR : 1 };
}

function partTokens(part: unknown, count: Counter): number {
  if (typeof part === 'string') return count(part);
  if (!part || typeof part !== 'object') return 0;
  const p = part as { type?: unknown; text?: unknown };
  if (p.type === 'text' && typeof p.text === 'string') return count(p.text);
  if (p.type === 'image_url' || p.type === 'input_image' || p.type === 'image') return IMAGE_TOKENS;
  return count(JSON.stringify(part));
}

export function promptTokenBound(req: ChatRequest, model: CatalogModel, bodyBytes: number): number {
  const { count, factor } = counterFor(model);
  let tokens = REPLY_PRIMER;
  for (const message of req.messages) {
    tokens += MESSAGE_OVERHEAD + count(message.role);
    const {
      content,
      tool_calls: toolCalls,
      name,
    } = message as { content?: unknown; tool_calls?: unknown; name?: unknown };
    if (typeof name === 'string') tokens += count(name);
    if (Array.isArray(content)) for (const part of content) tokens += partTokens(part, count);
    else tokens += partTokens(content, count);
    if (toolCalls !== undefined) tokens += count(JSON.stringify(toolCalls));
  }
  const tools = (req as { tools?: unknown }).tools;
  if (tools !== undefined) tokens += count(JSON.stringify(tools));
  return Math.min(Math.ceil(tokens * factor), bodyBytes);
}

// Keys whose values are not text the model reads as tokens (names of kinds, ids, inline bytes).
const NOT_TEXT = new Set([
  'type',
  'role',
  'id',
  'tool_use_id',
  'tool_call_id',
  'media_type',
  'mimeType',
  'mime_type',
  'data',
  'cache_control',
]);

function isImage(record: Record<string, unknown>): boolean {
  return (
    record.type === 'image' ||
    record.type === 'image_url' ||
    record.inlineData !== undefined ||
    record.inline_data !== undefined ||
    record.fileData !== undefined ||
    record.file_data !== undefined
  );
}

function walkTokens(value: unknown, count: Counter): number {
  if (typeof value === 'string') return count(value);
  if (Array.isArray(value)) {
    let tokens = 0;
    for (const item of value) tokens += walkTokens(item, count);
    return tokens;
  }
  if (!value || typeof value !== 'object') return 0;
  const record = value as Record<string, unknown>;
  if (isImage(record)) return IMAGE_TOKENS;
  let tokens = 0;
  for (const key in record) if (!NOT_TEXT.has(key)) tokens += walkTokens(record[key], count);
  return tokens;
}

/**
 * The prompt's tokens for the Messages and generateContent protocols as the model's tokenizer
 * counts them (no margin): the text of every turn, system prompt and tool definition,
 * MESSAGE_OVERHEAD per turn, an image IMAGE_TOKENS. What their count-tokens routes answer.
 */
export function structuredTokenCount(turns: readonly unknown[], rest: readonly unknown[], model: CatalogModel): number {
  const { count } = counterFor(model);
  let tokens = REPLY_PRIMER;
  for (const turn of turns) tokens += MESSAGE_OVERHEAD + walkTokens(turn, count);
  for (const value of rest) if (value !== undefined) tokens += walkTokens(value, count);
  return tokens;
}

/** The reservation bound of the same prompt: the count with the tokenizer's margin, never more than the body's bytes. */
export function structuredPromptTokens(
  turns: readonly unknown[],
  rest: readonly unknown[],
  model: CatalogModel,
  bodyBytes: number,
): number {
  return Math.min(Math.ceil(structuredTokenCount(turns, rest, model) * counterFor(model).factor), bodyBytes);
}

/** The tokens of plain texts (embeddings input) by the model's tokenizer, with its margin for `other`. */
export function textTokens(texts: readonly string[], model: CatalogModel): number {
  const { count, factor } = counterFor(model);
  let tokens = 0;
  for (const text of texts) tokens += count(text);
  return Math.ceil(tokens * factor);
}
