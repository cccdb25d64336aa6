/**
 * The one form every text protocol translates through (chat completions ⇄ Messages ⇄
 * generateContent). A request is decoded from the client's protocol into it and encoded from it
 * for the upstream's; an answer goes the other way, whole or event by event. Same-protocol calls
 * never pass through here: their bytes are forwarded as they came.
 */

/** The text protocols an upstream may speak (and a client too). */
export type ChatProtocol = 'openai' | 'anthropic' | 'gemini';
/** What a client may speak: the upstream protocols, and Responses (always translated: no upstream speaks it here). */
export type ClientProtocol = ChatProtocol | 'responses';

export type ImageSource = { kind: 'url'; url: string } | { kind: 'base64'; mediaType: string; data: string };

export type CanonicalPart =
  | { type: 'text'; text: string }
  | { type: 'image'; source: ImageSource }
  /** `arguments` is JSON text, as chat completions carry it (objects are stringified on the way in). */
  | { type: 'tool_call'; id: string; name: string; arguments: string }
  /** A tool's answer; `name` is filled from the call with that id where the source omits it. */
  | { type: 'tool_result'; id: string; name: string; content: string; isError: boolean };

/** Tool results travel in a user turn (as Messages has them); encoders reshape them. */
export interface CanonicalMessage {
  role: 'user' | 'assistant';
  parts: CanonicalPart[];
}

export interface CanonicalTool {
  name: string;
  description?: string | undefined;
  /** JSON Schema of the arguments, always an object schema. */
  parameters: Record<string, unknown>;
}

export type ToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; name: string };

export type ResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown> };

export interface CanonicalRequest {
  /** System text in order (system turns anywhere in the source are gathered here, in order). */
  system: string[];
  messages: CanonicalMessage[];
  tools: CanonicalTool[];
  toolChoice?: ToolChoice | undefined;
  /** At most one tool call per turn, asked for by the client's field `field`. */
  serialTools?: { field: string } | undefined;
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  topP?: number | undefined;
  topK?: number | undefined;
  stop: string[];
  responseFormat?: ResponseFormat | undefined;
  /** Sampling fields only some protocols have, kept by name so a target that lacks them can refuse (`400` naming the source field). */
  extras: Record<string, { field: string; value: unknown }>;
  stream: boolean;
}

export type StopReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/** Token counts as the protocols report them, normalised (PROTOCOLS.md §2). */
export interface CanonicalUsage {
  /** All input, cache reads and writes included. */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** All output, reasoning included. */
  output: number;
  reasoning: number;
}

/** Token counts as billing reads them (shared/billing/pricing.ts): see billableUsage. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** Part of inputTokens that the upstream served from its prompt cache. */
  cachedTokens: number;
}

export interface CanonicalResponse {
  id: string;
  model: string;
  parts: CanonicalPart[];
  stopReason: StopReason;
  usage: CanonicalUsage | undefined;
}

/** A stream as a sequence of protocol-neutral events, decoded from the upstream chunk by chunk. */
export type CanonicalEvent =
  | { type: 'start'; id: string; model: string }
  | { type: 'text'; text: string }
  /** `index` counts tool calls only (0, 1, ...). */
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'tool_call_args'; index: number; fragment: string }
  | { type: 'finish'; stopReason: StopReason }
  /** Cumulative: a later usage event replaces an earlier one field by field. `final`: the upstream's last count, not a running or opening one. */
  | { type: 'usage'; usage: Partial<CanonicalUsage>; final?: boolean }
  /** The upstream reported a failure inside the stream. */
  | { type: 'error' }
  /** The upstream's terminal marker: the stream is complete. */
  | { type: 'done' };

export const NO_USAGE: CanonicalUsage = Object.freeze({
  input: 0,
  cacheRead: 0,
  cacheWrite: 0,
  output: 0,
  reasoning: 0,
});
