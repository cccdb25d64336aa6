import type { CatalogModel } from '../catalog/index.js';
import type { ClientProtocol } from '../protocols/canonical/types.js';

/** What a route's path says about the call (generateContent names the model and the method there). */
export interface RouteParams {
  model?: string;
  stream?: boolean;
}

/** A client's text call as its surface read it: the body parsed per protocol. */
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
 * One client text protocol as the engine needs it (the body's schema, where a template's text goes);
 * its HTTP side — where the key is, which headers pass — is api/generation/surface.ts. One record
 * per protocol, in shared/generation/surfaces/.
 */
export interface TextSurface {
  /** The usage record's `surface`. */
  readonly id: string;
  readonly protocol: ClientProtocol;
  /** Validates the body with the protocol's schema (400 naming the field). */
  parse(body: unknown, params: RouteParams): SurfaceCall;
  /** The body with a prompt template's text prepended to its system prompt. */
  withSystemPrompt(body: Record<string, unknown>, text: string): Record<string, unknown>;
  /** Whether a missing `model` may be filled with the key's default (the model is in the body). */
  readonly modelInBody: boolean;
}
