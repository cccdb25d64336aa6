import type { Endpoint } from '../catalog/index.js';
import type { GatewayServices } from '../gateway/services.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import { CallMeter, type CallIdentity } from './call-meter.js';

/**
 * The meters of one call: the first attempt's, and one per fallback model (spec, routing rule 3:
 * each model tried has its own usage record, its request id ending in `-fb1`, `-fb2`…). The one
 * place those ids are made, for every metered call: text, embeddings, JSON images. `meter` is
 * always the attempt running now, the one a failure is recorded on.
 */
export class MeterChain implements CallIdentity {
  meter: CallMeter;
  templateVersionId: string | null = null;
  /** Set for a batch line (the model's batch discount applies). */
  batch = false;

  constructor(
    protected readonly services: GatewayServices,
    readonly key: ApiKeyContext,
    readonly endpoint: Endpoint,
    readonly surface: string | null,
    /** The first attempt's ids: what the client sees in X-Request-Id, and the gateway's own. */
    readonly requestId: string,
    readonly callId: string,
    readonly tags: string[],
    readonly sessionId: string | null = null,
  ) {
    this.meter = new CallMeter(services, this, requestId, callId);
  }

  /** The meter of fallback attempt `attempt` (1, 2…), which becomes the chain's current one. */
  next(attempt: number): CallMeter {
    this.meter = new CallMeter(this.services, this, `${this.requestId}-fb${attempt}`, `${this.callId}-fb${attempt}`);
    return this.meter;
  }
}
