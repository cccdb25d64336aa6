import type { IncomingMessage } from 'node:http';
import type { ForwardedHeaders } from '../../shared/providers/chat-adapter.js';
import type { TextSurface } from '../../shared/generation/text-surface.js';

export type { RouteParams, SurfaceCall } from '../../shared/generation/text-surface.js';

export type SurfaceId = 'chat-completions' | 'responses' | 'messages' | 'generate-content';

/**
 * One client text protocol as an HTTP route serves it: the engine's record of the protocol
 * (shared/generation/surfaces/) with where the key is and which headers pass. Everything else —
 * the pipeline, routing, metering, the relay, translation — is shared/generation's.
 */
export interface Surface extends TextSurface {
  readonly id: SurfaceId;
  /** The key, from wherever this surface takes it (headers, or the query for generateContent). */
  credential(req: IncomingMessage): string | undefined;
  /** Where the key goes on this surface, for the message of a missing key. */
  readonly credentialHint: string;
  /** Headers a same-protocol upstream needs to read the body as the client meant it. */
  forwardedHeaders(req: IncomingMessage): ForwardedHeaders | undefined;
}
