import type { Redis } from 'ioredis';
import type { BalanceStore } from '../billing/balance.js';
import type { QuotaStore } from '../billing/quota.js';
import { SingleFlight } from '../cache/single-flight.js';
import type { Group } from '../catalog/index.js';
import { utcDay } from '../clock.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import type { RedisKeys } from '../redis/keys.js';
import { flatRateHeaders, rateHeaders, refusal, type AdmitRefusal, type Header } from './admission-answers.js';
import type { AdmissionInput, AdmissionOptions, Admitted, FinishInput } from './admission-types.js';
import { NO_HEADERS, NONE } from './admission-types.js';
import { pushAdmitFields } from './admit-fields.js';
import { type CounterLoads, GrantSpending } from './grant-spending.js';
import { type Dimension, LimitRulesCache, type RateLayer } from './layers.js';
import { LeaseRenewer } from './lease-renewer.js';
import { LimitKeyNames } from './limit-keys.js';
import { settleCall } from './settlement.js';
import { StepBatch } from './step-batch.js';

export type { AdmissionInput, AdmissionOptions, Admitted, FinishInput } from './admission-types.js';

/**
 * Steps 5 and 6 in one Redis round trip (two more, once, when an account's balance or a key's
 * spend is not loaded yet), and the end of a call in one more (shared/limits/settlement.ts).
 *
 * Far from its limits, a key's calls take no round trip to be admitted: the process holds a grant
 * (money from the balance and the quota caps, requests and tokens from each rate layer's window),
 * taken in one script call and spent locally, given back when the key goes idle or changes (see
 * shared/limits/grants.ts and grant-spending.ts). A grant is refused unless the subject has room
 * for GRANT_ROOM of it, so near a limit every call is decided in Redis as before. Calls that hold a
 * concurrency slot and task reservations are always decided in Redis.
 */
export class Admissions {
  readonly renewer: LeaseRenewer;
  private readonly step: StepBatch;
  private readonly names: LimitKeyNames;
  private readonly rules: LimitRulesCache;
  private readonly grants: GrantSpending;
  private readonly loads: CounterLoads;

  constructor(
    private readonly redis: Redis,
    keys: RedisKeys,
    balances: BalanceStore,
    quotas: QuotaStore,
    private readonly options: AdmissionOptions,
    /** The connection the batched STEP calls go out on (see StepBatch); the main one by default. */
    stepConnection: Redis = redis,
  ) {
    this.renewer = new LeaseRenewer(redis, options);
    this.step = new StepBatch(stepConnection);
    this.names = new LimitKeyNames(keys);
    this.rules = new LimitRulesCache(keys);
    // A crowd of calls that find the same counters unloaded loads them from Postgres once.
    const balanceLoads = new SingleFlight<string>();
    const quotaLoads = new SingleFlight<string>();
    this.loads = {
      balance: (userId) => balanceLoads.run(userId, () => balances.load(userId)),
      quota: (keyId, now) => quotaLoads.run(`${keyId}\0${utcDay(now)}`, () => quotas.load(keyId, now)),
    };
    this.grants = new GrantSpending(this.step, this.names, this.renewer, this.loads, options);
  }

  async admit(input: AdmissionInput): Promise<Admitted> {
    const { key, callId, now } = input;
    const detached = input.detachedReservationTtlMs !== undefined;
    const rules = this.rules.rules(key, input.group);
    if (this.options.grants !== false && !detached && input.holdsSlot !== false) {
      const granted = this.grants.take(input, rules);
      if (granted) return granted;
    }
    // A detached (task) reservation holds its concurrency lease only while the creating request
    // runs: the caller gives it back with releaseLeases (or it expires after LEASE_TTL_MS).
    const concurrency = input.holdsSlot === false ? NONE : rules.concurrency;
    const concurrencyKeys = input.holdsSlot === false ? NONE : rules.concurrencyKeys;
    const op: (string | number)[] = ['A'];
    const quotaReserved = pushAdmitFields(op, this.names, {
      key,
      now,
      id: callId,
      amount: input.maxCost,
      reservationExpiry: now + (input.detachedReservationTtlMs ?? this.options.reservationTtlMs),
      tokens: input.estimatedTokens,
      rates: rules.rates,
      concurrency,
      leaseTtlMs: this.options.leaseTtlMs,
    });
    for (let attempt = 0; attempt < 5; attempt++) {
      let raw: string;
      try {
        raw = await this.step.run(op);
      } catch (err) {
        // No answer (Redis stalled or gone): the admission may still run when Redis wakes, so a
        // release queued behind it on the same connection gives back whatever it would take.
        this.releaseUnanswered(key, callId, rules.tpm, concurrencyKeys);
        throw err;
      }
      if (raw === 'load_balance') {
        await this.loads.balance(key.userId);
        continue;
      }
      if (raw === 'load_quota') {
        await this.loads.quota(key.id, now);
        continue;
      }
      let headers = NO_HEADERS;
      if (raw !== 'ok') {
        if (!raw.startsWith('ok ')) throw refusal(JSON.parse(raw) as AdmitRefusal, now);
        headers = flatRateHeaders(raw);
      }
      const admitted: Admitted = {
        headers,
        tpm: rules.tpm,
        concurrencyKeys,
        estimatedTokens: input.estimatedTokens,
        reserved: input.maxCost,
        quotaReserved,
      };
      if (!detached) this.renewer.track(callId, this.names.account(key.userId).resv, admitted.concurrencyKeys);
      return admitted;
    }
    throw new Error(`admission of ${callId} could not load its counters`);
  }

  /** Gives back a detached admission's concurrency leases (a task creation done), keeping its reservation. */
  async releaseLeases(admitted: Admitted, callId: string): Promise<void> {
    if (admitted.concurrencyKeys.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const k of admitted.concurrencyKeys) pipeline.zrem(k, callId);
    await pipeline.exec();
  }

  /** Resolves once the admissions and finishes asked for so far are written to Redis (see StepBatch.sent). */
  sent(): Promise<void> {
    return this.step.sent();
  }

  /** Resolves once every admission and finish asked for so far has its answer from Redis. */
  settled(): Promise<void> {
    return this.step.settled();
  }

  /**
   * Where the caller stands, for responses that take nothing (a model list, an estimate, a call
   * refused before admission). No Redis call when no layer limits requests or tokens.
   */
  async peekHeaders(key: ApiKeyContext, group: Group, now: number): Promise<Record<string, string>> {
    const { rates } = this.rules.rules(key, group);
    if (rates.length === 0) return {};
    const hdr = JSON.parse(String(await this.redis.gwPeek(JSON.stringify({ now, rates })))) as Partial<
      Record<Dimension, Header>
    >;
    return rateHeaders(hdr);
  }

  /** Releases what the call held, charges it and queues its record; returns the amount charged. */
  finish(input: FinishInput): Promise<number> {
    this.renewer.untrack(input.callId);
    const a = input.admitted;
    if (a?.grant) return this.grants.finish(input, a, a.grant);
    return settleCall(this.step, this.names, input);
  }

  /** Drops the grants of a key, or of every key of an account (`user:<id>`): a key change or revocation message. */
  dropGrants(message: string): void {
    this.grants.dropGrants(message);
  }

  /** Gives back every grant (a stopping process); `settled` then waits for Redis to take them. */
  dropAllGrants(): void {
    this.grants.dropAll();
  }

  private releaseUnanswered(
    key: ApiKeyContext,
    callId: string,
    tpm: readonly RateLayer[],
    concurrencyKeys: readonly string[],
  ): void {
    // Whether the admission took anything is unknown: finish looks the reservation up itself.
    const admitted: Admitted = {
      headers: {},
      tpm,
      concurrencyKeys,
      estimatedTokens: 0,
      reserved: -1,
      quotaReserved: '',
    };
    void this.finish({
      owner: { userId: key.userId, keyId: key.id },
      callId,
      now: Date.now(),
      cost: 0,
      admitted,
      actualTokens: 0,
      record: undefined,
    }).catch(() => {});
  }
}
