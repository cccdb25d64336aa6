import type { IncomingMessage } from 'node:http';
import type { CatalogModel } from '../../shared/catalog/index.js';
import type { ForwardedHeaders } from '../../shared/providers/chat-adapter.js';
import type { ClientProtocol } from '../../shared/protocols/canonical/types.js';

export type SurfaceId = 'chat-completions' | 'responses' | 'messages' | 'generate-content';

/** What a route's path says about the call (generateContent names the model and the method there). */
export interface RouteParams {
  model?: string;
  stream?: boolean;
}

/** A client's generation call as its surface read it. */
export interface SurfaceCall {
  /** The body as validated (unknown fields the protocol allows are kept). */
  body: Record<string, unknown>;
  model: string;
  stream: boolean;
  /** The client's own output cap, if it set one. */
  maxTokens: number | undefined;
  /** Chat completions' `stream_options.include_usage` (the other protocols always send usage). */
  clientWantsUsage: boolean;
  /** The gateway's routing field (`provider`), removed before the body goes upstream. */
  provider: unknown;
  /** An upper bound of the prompt's tokens for the model (reservations). */
  promptTokens(model: CatalogModel, bodyBytes: number): number;
}

/**
 * One client protocol, as the generation handler needs it: everything else (the pipeline, routing,
 * metering, the relay, translation) is shared. Built once per protocol.
 */
export interface Surface {
  readonly id: SurfaceId;
  readonly protocol: ClientProtocol;
  /** The key, from wherever this surface takes it (headers, or the query for generateContent). */
  credential(req: IncomingMessage): string | undefined;
  /** Where the key goes on this surface, for the message of a missing key. */
  readonly credentialHint: string;
  /** Validates the body with the protocol's schema (400 naming the field). */
  parse(body: unknown, params: RouteParams): SurfaceCall;
  /** The body with a prompt template's text prepended to its system prompt. */
  withSystemPrompt(body: Record<string, unknown>, text: string): Record<string, unknown>;
  /** Headers a same-protocol upstream needs to read the body as the client meant it. */
  forwardedHeaders(req: IncomingMessage): ForwardedHeaders | undefined;
  /** Whether a missing `model` may be filled with the key's default (the model is in the body). */
  readonly modelInBody: boolean;
}
