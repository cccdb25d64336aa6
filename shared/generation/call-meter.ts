import type { TokenUsage } from '../billing/pricing.js';
import { tokenCost, withBatchDiscount, type Discount } from '../billing/pricing.js';
import type { CatalogModel, Endpoint } from '../catalog/index.js';
import type { GatewayError } from '../errors.js';
import { admit, discountOf } from '../gateway/pipeline.js';
import type { GatewayServices } from '../gateway/services.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import type { Admitted } from '../limits/admission.js';
import { noteMeteredCall, noteOfCall } from '../telemetry/request-note.js';
import { spanOver, startChildSpan } from '../telemetry/spans.js';
import { usageFields, type UsageEvent } from '../usage/record.js';

/** Who made a call and how its usage records name it: the same on the record of every attempt. */
export interface CallIdentity {
  /** The first attempt's call id: the one its HTTP request (shared/telemetry/request-note.ts) is known by. */
  readonly callId: string;
  readonly key: ApiKeyContext;
  /** The catalog endpoint the model serves (`chat/completions` for every text surface): reports and estimates key on it. */
  readonly endpoint: Endpoint;
  /** What the client called (`chat-completions`, `messages`, `generate-content`, `responses`, `private`, `embeddings`…). */
  readonly surface: string | null;
  readonly tags: string[];
  /** The client's session (`X-Session-Id`), for scores and logs. */
  readonly sessionId: string | null;
  /** The prompt-template version the call ran. */
  readonly templateVersionId: string | null;
  /** A line of a batch: priced with the model's batch discount too. */
  readonly batch?: boolean;
}

/** What a call of `model` is discounted: the account's and group's, and a batch line's. */
export function discountOfCall(services: GatewayServices, call: CallIdentity, model: CatalogModel): Discount {
  const discount = discountOf(services, call.key);
  return call.batch ? withBatchDiscount(discount, model) : discount;
}

export interface CallOutcome {
  statusCode: number;
  errorCode?: string | null;
  provider?: string | null;
  usage?: TokenUsage | undefined;
  usageEstimated?: boolean;
  stream?: boolean;
  ttftMs?: number | null;
  /** `<provider>/<account>` that served the call. */
  account?: string | null;
  /** The model name the upstream was asked for (traces' `gen_ai.response.model`). */
  upstreamModel?: string;
  /** The charge when it is not priced by tokens (images: per image delivered), already discounted. */
  fixedCost?: number;
  /** Answered from the response cache: the record says so, and its tokens count toward no TPM limit. */
  cacheHit?: boolean;
}

/**
 * One metered call: takes the reservation and leases (steps 5-6), and at the end writes exactly one
 * usage record with its charge: the priced usage, also where it exceeds the reservation (what the
 * reservation does not cover is taken from the balance as far as it goes, and the record flagged). `close` in a finally releases what a call that never finished held.
 */
export class CallMeter {
  private readonly startedAt = performance.now();
  private admitted: Admitted | undefined;
  private finished = false;
  model: CatalogModel | undefined;
  private readonly key: ApiKeyContext;

  constructor(
    private readonly services: GatewayServices,
    /** The call this attempt belongs to (see MeterChain): read when the record is written. */
    private readonly call: CallIdentity,
    readonly requestId: string,
    readonly callId: string,
  ) {
    this.key = call.key;
  }

  /** Milliseconds since the call arrived. */
  elapsedMs(): number {
    return Math.round(performance.now() - this.startedAt);
  }

  /** Admits the call (steps 5 and 6); resolves with the rate-limit headers to send. */
  admit(model: CatalogModel, maxCost: number, estimatedTokens: number): Promise<Record<string, string>> {
    this.model = model;
    const span = startChildSpan('gateway.admission', noteOfCall(this.call.callId)?.span);
    const admitted = admit(this.services, this.key, this.callId, maxCost, estimatedTokens);
    return spanOver(span, admitted).then(
      (admitted) => {
        this.admitted = admitted;
        return admitted.headers;
      },
      (err: GatewayError) => {
        // Redis did not answer: there is nowhere to record the call, and waiting again would only
        // hold the client longer (the admission released itself).
        if (err.code === 'service_unavailable') this.finished = true;
        throw err;
      },
    );
  }

  /** Charges the priced usage (zero for failures) and queues the record; resolves with the amount charged. */
  finish(outcome: CallOutcome): Promise<number> {
    if (this.finished) return Promise.resolve(0);
    this.finished = true;
    // Usage is known only for calls the upstream served (in full or in part); failures cost nothing.
    const cost =
      outcome.fixedCost ??
      (this.model && outcome.usage
        ? tokenCost(this.model, outcome.usage, discountOfCall(this.services, this.call, this.model))
        : 0);
    const call = this.call;
    const event: UsageEvent = {
      id: this.callId,
      request_id: this.requestId,
      user_id: this.key.userId,
      api_key_id: this.key.id,
      model: this.model?.id ?? '',
      provider: outcome.provider ?? null,
      endpoint: call.endpoint,
      status_code: outcome.statusCode,
      error_code: outcome.errorCode ?? null,
      stream: outcome.stream ?? false,
      ...usageFields(outcome.usage),
      usage_estimated: outcome.usageEstimated ?? false,
      // The upstream delivered more than was reserved: charged from the balance beyond it (STEP's finish).
      over_reservation: this.admitted !== undefined && cost > this.admitted.reserved,
      tags: call.tags,
      latency_ms: this.elapsedMs(),
      ttft_ms: outcome.ttftMs ?? null,
      upstream_account: outcome.account ?? null,
      template_version_id: call.templateVersionId,
      session_id: call.sessionId,
      surface: call.surface,
      created_at: new Date(this.services.clock.now()).toISOString(),
    };
    if (outcome.cacheHit) event.cache_hit = true;
    noteMeteredCall(call.callId, {
      keyId: this.key.id,
      accountId: this.key.userId,
      endpoint: call.endpoint,
      model: this.model?.id,
      provider: outcome.provider,
      account: outcome.account,
      upstreamModel: outcome.upstreamModel,
      errorCode: outcome.errorCode,
      inputTokens: outcome.usage?.inputTokens,
      outputTokens: outcome.usage?.outputTokens,
    });
    // A cache hit counts as a request, not as tokens: nothing ran upstream.
    const actualTokens =
      outcome.usage && !outcome.cacheHit ? outcome.usage.inputTokens + outcome.usage.outputTokens : 0;
    return this.end(cost, actualTokens, event);
  }

  /**
   * Resolves once the settlement `finish` asked for is written to Redis (not yet applied): what an
   * answer waits for, so that a process killed after its client has the answer still has it charged.
   */
  sent(): Promise<void> {
    return this.services.admissions.sent();
  }

  /** Releases what a call that ends without `finish` held (a crash path; finish is the norm). */
  close(): Promise<number> | undefined {
    if (this.finished || !this.admitted) return undefined;
    this.finished = true;
    return this.end(0, 0, undefined);
  }

  private end(cost: number, actualTokens: number, record: UsageEvent | undefined): Promise<number> {
    // The settlement and the usage record, one Redis script (drained into Postgres by a worker).
    const span = startChildSpan('gateway.usage_write', noteOfCall(this.call.callId)?.span);
    const settled = this.services.admissions
      .finish({
        owner: { userId: this.key.userId, keyId: this.key.id },
        callId: this.callId,
        now: this.services.clock.now(),
        cost,
        admitted: this.admitted,
        actualTokens,
        record,
      })
      .catch((err: unknown) => {
        this.services.log.error(
          { err: (err as Error).message, callId: this.callId },
          'finishing a call failed; its holds expire on their own',
        );
        return 0;
      });
    return spanOver(span, settled);
  }
}
