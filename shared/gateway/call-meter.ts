import type { TokenUsage } from '../billing/pricing.js';
import { tokenCost } from '../billing/pricing.js';
import type { CatalogModel, Endpoint } from '../catalog/index.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import { usageFields, type UsageEvent } from '../usage/record.js';
import { admit } from './pipeline.js';
import type { GatewayServices } from './services.js';

export interface CallOutcome {
  statusCode: number;
  errorCode?: string | null;
  provider?: string | null;
  usage?: TokenUsage | undefined;
  usageEstimated?: boolean;
  stream?: boolean;
  ttftMs?: number | null;
}

/**
 * One metered call: takes the reservation (steps 5-6), and at the end writes exactly one usage
 * record with its charge. `close` in a finally releases a reservation that was never settled.
 */
export class CallMeter {
  private readonly startedAt = performance.now();
  private reserved = false;
  private finished = false;
  model: CatalogModel | undefined;

  constructor(
    private readonly services: GatewayServices,
    readonly key: ApiKeyContext,
    readonly endpoint: Endpoint,
    readonly requestId: string,
    readonly callId: string,
    readonly tags: string[],
  ) {}

  /** Milliseconds since the call arrived. */
  elapsedMs(): number {
    return Math.round(performance.now() - this.startedAt);
  }

  async admit(model: CatalogModel, maxCost: number): Promise<void> {
    this.model = model;
    await admit(this.services, this.key, this.callId, maxCost);
    this.reserved = true;
  }

  /** Charges the priced usage (zero for failures) and queues the record; returns the amount charged. */
  async finish(outcome: CallOutcome): Promise<number> {
    if (this.finished) return 0;
    this.finished = true;
    // Usage is known only for calls the upstream served (in full or in part); failures cost nothing.
    const cost = this.model && outcome.usage ? tokenCost(this.model, outcome.usage) : 0;
    const event: UsageEvent = {
      id: this.callId,
      request_id: this.requestId,
      user_id: this.key.userId,
      api_key_id: this.key.id,
      model: this.model?.id ?? '',
      provider: outcome.provider ?? null,
      endpoint: this.endpoint,
      status_code: outcome.statusCode,
      error_code: outcome.errorCode ?? null,
      stream: outcome.stream ?? false,
      ...usageFields(outcome.usage),
      usage_estimated: outcome.usageEstimated ?? false,
      tags: this.tags,
      latency_ms: this.elapsedMs(),
      ttft_ms: outcome.ttftMs ?? null,
      created_at: new Date().toISOString(),
    };
    try {
      return await this.services.balances.settle(this.key.userId, this.callId, cost, JSON.stringify(event));
    } catch (err) {
      this.services.log.error({ err, callId: this.callId }, 'settlement failed; the reservation expires on its own');
      return 0;
    }
  }

  /** Releases the reservation of a call that ends without settlement (a crash path; finish is the norm). */
  async close(): Promise<void> {
    if (!this.reserved || this.finished) return;
    this.finished = true;
    await this.services.balances.release(this.key.userId, this.callId).catch(() => {});
  }
}
