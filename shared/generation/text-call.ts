import type { GatewayServices } from '../gateway/services.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import type { ClientProtocol } from '../protocols/canonical/types.js';
import type { CallState } from '../routing/fallback.js';
import type { RoutingPlan } from '../routing/plan.js';
import { MeterChain } from './meter-chain.js';
import type { Passage } from './passage.js';
import type { GenerationRequest } from './request-body.js';
import type { SurfaceCall, TextSurface } from './text-surface.js';
import type { Transcript } from './transcript.js';

/**
 * One text call — chat completions, Responses, Messages, generateContent or a private-protocol
 * chat — from its key to its answer: who made it and how its records name it (the meter chain it
 * is), its body parsed per protocol, the models it may try (step 4's plan), the body per upstream
 * protocol, and as it runs the passage of the route attempt. runTextCall drives it; the fields
 * after `state` are set as runTextCall reads an HTTP call's body, or given whole (a stored private call).
 */
export class TextCall extends MeterChain {
  /** The attempt now running, and whether the client left (the answer path sets it). */
  readonly state: CallState = { upstream: undefined, clientGone: false };
  parsed!: SurfaceCall;
  plan!: RoutingPlan;
  request!: GenerationRequest;
  /** Bytes of the client's body: the prompt's estimate when an upstream reports no usage. */
  bodyBytes = 0;
  /** The passage of the route attempt running now; once answered, of the route that answered. */
  passage: Passage | undefined;
  /** The prompt's tokens as the gateway counted them for the model attempt running now (its reservation). */
  promptTokens = 0;
  /** Set when the call keeps its streamed answer (content logging, a private result); the common call collects nothing. */
  transcript: Transcript | undefined;

  constructor(
    services: GatewayServices,
    key: ApiKeyContext,
    /** The client's protocol: what its body is, and what its answer must be. */
    readonly textSurface: TextSurface,
    /** The usage record's `surface` (the text surface's id, or `private`). */
    surfaceId: string,
    requestId: string,
    callId: string,
    tags: string[],
    sessionId: string | null,
  ) {
    // Every text surface serves the catalog's `chat/completions` models; `surface` says which was called.
    super(services, key, 'chat/completions', surfaceId, requestId, callId, tags, sessionId);
  }

  get protocol(): ClientProtocol {
    return this.textSurface.protocol;
  }
}
