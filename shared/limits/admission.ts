import type { Redis } from 'ioredis';
import type { BalanceStore } from '../billing/balance.js';
import type { QuotaStore } from '../billing/quota.js';
import type { Group } from '../catalog/index.js';
import { utcDay, utcMonth } from '../clock.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import type { KeyQuotaKeys, RedisKeys } from '../redis/keys.js';
import { LimitRulesCache, type Dimension, type LimitRules, type RateLayer } from './layers.js';
import { LeaseRenewer } from './lease-renewer.js';
import type { UsageEvent } from '../usage/record.js';
import { StepBatch } from './step-batch.js';
import { flatRateHeaders, rateHeaders, refusal, type AdmitRefusal, type Header } from './admission-answers.js';
import { Bundle, bundleKey, EXACT_FOR_MS, Grant, GRANT_ROOM, IDLE_MS, newGrantId } from './grants.js';

export interface AdmissionInput {
  key: ApiKeyContext;
  group: Group;
  callId: string;
  /** The most the call can cost, reserved against the balance and every quota cap. */
  maxCost: number;
  /** Reserved against TPM, corrected to the actual tokens when the call ends. */
  estimatedTokens: number;
  now: number;
  /**
   * A task's reservation outlives the creating request: it lasts this long (its deadline and some)
   * instead of being renewed by this process, and the task takes no concurrency lease.
   */
  detachedReservationTtlMs?: number;
  /** false: the call holds no concurrency slot (a request that generates nothing). Default true. */
  holdsSlot?: boolean;
}

/** What an admitted call holds until `finish`. */
export interface Admitted {
  readonly headers: Record<string, string>;
  readonly tpm: readonly RateLayer[];
  readonly concurrencyKeys: readonly string[];
  readonly estimatedTokens: number;
  /** The micro-USD reserved (finish gives back what the call did not cost). */
  readonly reserved: number;
  /** The key's reserved-spend counter when the reservation also holds its quota caps, else ''. */
  readonly quotaReserved: string;
  /** The grant the call was admitted from, without a Redis call of its own (shared/limits/grants.ts). */
  readonly grant?: Grant;
}

export interface FinishInput {
  owner: { userId: string; keyId: string };
  callId: string;
  now: number;
  /** Priced cost: what was reserved is charged first, the rest from the balance as far as it goes. */
  cost: number;
  admitted: Admitted | undefined;
  actualTokens: number;
  /** The usage record to queue (its charge is added here, as settled). */
  record: UsageEvent | undefined;
  /** Finish at most once for this call (tasks: a settle job that runs twice charges once). */
  once?: boolean;
}

export interface AdmissionOptions {
  reservationTtlMs: number;
  leaseTtlMs: number;
  /** false: every call is decided in Redis (ADMISSION_GRANTS=false). */
  grants?: boolean;
}

/**
 * Steps 5 and 6 in one Redis round trip (two more, once, when an account's balance or a key's
 * spend is not loaded yet), and the end of a call in one more.
 *
 * Far from its limits, a key's calls take no round trip to be admitted: the process holds a grant
 * (money from the balance and the quota caps, requests and tokens from each rate layer's window),
 * taken in one script call and spent locally, given back when the key goes idle or changes (see
 * shared/limits/grants.ts). A grant is refused unless the subject has room for GRANT_ROOM of it,
 * so near a limit every call is decided in Redis as before. Calls that hold a concurrency slot and
 * task reservations are always decided in Redis.
 */
export class Admissions {
  readonly renewer: LeaseRenewer;
  private readonly step: StepBatch;
  private readonly accountNames = new Map<string, AccountKeys>();
  private readonly quotaNames = new Map<string, { day: string; names: KeyQuotaKeys }>();
  private readonly keyPrefixes = new Map<string, string>();
  private readonly rules: LimitRulesCache;
  private readonly bundles = new Map<string, Bundle>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly balances: BalanceStore,
    private readonly quotas: QuotaStore,
    private readonly options: AdmissionOptions,
    /** The connection the batched STEP calls go out on (see StepBatch); the main one by default. */
    stepConnection: Redis = redis,
  ) {
    this.renewer = new LeaseRenewer(redis, options);
    this.step = new StepBatch(stepConnection);
    this.rules = new LimitRulesCache(keys);
  }

  async admit(input: AdmissionInput): Promise<Admitted> {
    const { key, callId, now } = input;
    const detached = input.detachedReservationTtlMs !== undefined;
    const rules = this.rules.rules(key, input.group);
    if (this.options.grants !== false && !detached && input.holdsSlot !== false) {
      const granted = this.fromGrant(input, rules);
      if (granted) return granted;
    }
    const rates = rules.rates;
    // A detached (task) reservation holds its concurrency lease only while the creating request
    // runs: the caller gives it back with releaseLeases (or it expires after LEASE_TTL_MS).
    const concurrency = input.holdsSlot === false ? NONE : rules.concurrency;
    const concurrencyKeys = input.holdsSlot === false ? NONE : rules.concurrencyKeys;
    const acct = this.accountKeys(key.userId);
    const q = this.pushAdmitFields(
      ['A'],
      key,
      now,
      callId,
      input.maxCost,
      now + (input.detachedReservationTtlMs ?? this.options.reservationTtlMs),
      input.estimatedTokens,
      rates,
      concurrency,
    );
    const op = q.op;
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
        await this.balances.load(key.userId);
        continue;
      }
      if (raw === 'load_quota') {
        await this.quotas.load(key.id, now);
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
        quotaReserved: q.quotaReserved,
      };
      if (!detached) this.renewer.track(callId, acct.resv, admitted.concurrencyKeys);
      return admitted;
    }
    throw new Error(`admission of ${callId} could not load its counters`);
  }

  /** Appends the fields of an admission (or a grant) in the order the STEP script's admit reads them. */
  private pushAdmitFields(
    op: (string | number)[],
    key: ApiKeyContext,
    now: number,
    id: string,
    amount: number,
    reservationExpiry: number,
    tokens: number,
    rates: readonly RateLayer[],
    concurrency: readonly { k: string; limit: number; layer: string }[],
  ): { op: (string | number)[]; quotaReserved: string } {
    const acct = this.accountKeys(key.userId);
    const { total, daily, monthly } = key.quota;
    const capped = total !== null || daily !== null || monthly !== null;
    const q = capped ? this.quotaKeys(key.id, now) : undefined;
    op.push(now, id, amount, reservationExpiry, acct.bal, acct.resv);
    if (q) op.push('1', q.t, q.d, q.m, q.r, total ?? '', daily ?? '', monthly ?? '');
    else op.push('0');
    op.push(rates.length);
    if (rates.length > 0) {
      // A request costs 1 against RPM (a grant: its size); the estimated tokens against TPM, the same at every layer.
      op.push(tokens);
      for (const r of rates) op.push(r.k, r.layer, r.rpm ?? '', r.tpm ?? '');
    }
    op.push(concurrency.length);
    if (concurrency.length > 0) {
      op.push(now + this.options.leaseTtlMs, this.options.leaseTtlMs);
      for (const c of concurrency) op.push(c.k, c.limit, c.layer);
    }
    return { op, quotaReserved: q?.r ?? '' };
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

  /** Releases what the call held, charges it and queues its record; returns the amount charged. */
  async finish(input: FinishInput): Promise<number> {
    const { owner, now } = input;
    this.renewer.untrack(input.callId);
    const a = input.admitted;
    if (a?.grant) return this.finishFromGrant(input, a, a.grant);
    const acct = this.accountKeys(owner.userId);
    // The fields in the order the STEP script's finish reads them. Without the admission at hand (a
    // task settling later, an admission that got no answer) the script looks the reservation up.
    const held = a && a.reserved >= 0 ? a.reserved : '';
    // The script charges less only when the reservation and the balance ran out (and then rewrites
    // the record's charge).
    const cost = input.cost;
    const op: (string | number)[] = [
      'F',
      now,
      input.callId,
      cost,
      held,
      a?.quotaReserved ?? '',
      acct.bal,
      acct.resv,
      acct.und,
      acct.epoch,
    ];
    op.push(owner.keyId ? this.keySpendPrefix(owner.keyId) : '', utcDay(now), utcMonth(now), this.keys.usageQueue);
    op.push(input.once ? this.keys.finished(input.callId) : '', input.record ? queuedRecord(input.record, cost) : '');
    const tpm = a?.tpm ?? NONE;
    op.push(tpm.length);
    if (tpm.length > 0) {
      op.push(input.actualTokens - a!.estimatedTokens);
      for (const r of tpm) op.push(r.k, r.tpm!);
    }
    const conc = a?.concurrencyKeys ?? NONE;
    op.push(conc.length);
    for (const k of conc) op.push(k);
    return Number(await this.step.run(op));
  }

  /** A call admitted from the key's grant, or undefined (no grant, or it does not cover the call: a new one is asked for). */
  private fromGrant(input: AdmissionInput, rules: LimitRules): Admitted | undefined {
    const id = bundleKey(input.key, input.group);
    let bundle = this.bundles.get(id);
    if (bundle && (bundle.key !== input.key || bundle.rules !== rules)) {
      // The key, its account or the group changed: what was granted under the old settings goes back.
      this.dropBundle(id, bundle);
      bundle = undefined;
    }
    if (!bundle) {
      bundle = new Bundle(input.key, input.group, rules);
      this.bundles.set(id, bundle);
      this.sweeper ??= setInterval(() => this.sweep(), IDLE_MS / 2).unref();
    }
    bundle.observe(Date.now(), input.maxCost, input.estimatedTokens);
    for (let turn = 0; turn < 2; turn++) {
      const grant = bundle.current;
      if (grant?.take(input.maxCost, input.estimatedTokens)) {
        // Half spent: the next grant is asked for now, so that no call waits for it.
        if (grant.low() && !bundle.next) this.refillSoon(id, bundle, input.now);
        return {
          headers: grant.callHeaders(),
          tpm: rules.tpm,
          concurrencyKeys: NONE,
          estimatedTokens: input.estimatedTokens,
          reserved: input.maxCost,
          quotaReserved: '',
          grant,
        };
      }
      if (grant) this.retire(grant);
      bundle.current = bundle.next;
      bundle.next = undefined;
      if (!bundle.current) break;
    }
    this.refillSoon(id, bundle, input.now);
    return undefined;
  }

  private refillSoon(id: string, bundle: Bundle, now: number): void {
    if (!bundle.refilling && Date.now() >= bundle.exactUntil) void this.refill(id, bundle, now);
  }

  /** Asks Redis for a grant for the bundle (one script call); refused: the bundle's calls are decided one by one for a while. */
  private async refill(id: string, bundle: Bundle, now: number): Promise<void> {
    bundle.refilling = true;
    try {
      const size = bundle.nextSize();
      if (!size) {
        bundle.exactUntil = Date.now() + EXACT_FOR_MS;
        return;
      }
      const grantId = newGrantId();
      const acct = this.accountKeys(bundle.key.userId);
      const op: (string | number)[] = ['G', size.requests, size.slots, GRANT_ROOM];
      this.pushAdmitFields(
        op,
        bundle.key,
        now,
        grantId,
        size.money,
        now + this.options.reservationTtlMs,
        size.tokens,
        bundle.rules.rates,
        bundle.rules.concurrency,
      );
      const raw = await this.step.run(op);
      if (raw === 'load_balance') return void (await this.balances.load(bundle.key.userId));
      if (raw === 'load_quota') return void (await this.quotas.load(bundle.key.id, now));
      if (raw !== 'ok' && !raw.startsWith('ok ')) {
        bundle.exactUntil = Date.now() + EXACT_FOR_MS;
        return;
      }
      const grant = bundle.newGrant(size, raw === 'ok' ? NO_HEADERS : flatRateHeaders(raw), grantId);
      grant.clockSkew = now - Date.now();
      // Its hold and its slots are renewed like a call's reservation and leases while it lives.
      this.renewer.track(grantId, acct.resv, NONE);
      if (grant.slots > 0)
        this.renewer.track(
          grant.slotMember,
          '',
          grant.slotLayers.map((c) => `${c.k}:g`),
        );
      if (this.bundles.get(id) !== bundle) this.retire(grant);
      else if (!bundle.current) bundle.current = grant;
      else if (!bundle.next) bundle.next = grant;
      else this.retire(grant);
    } catch {
      bundle.exactUntil = Date.now() + EXACT_FOR_MS;
    } finally {
      bundle.refilling = false;
    }
  }

  private finishFromGrant(input: FinishInput, a: Admitted, grant: Grant): Promise<number> {
    const { owner, now } = input;
    const acct = this.accountKeys(owner.userId);
    const cost = input.cost;
    // The grant's hold pays up to what the call took of it; the rest comes from the balance.
    const fromHold = Math.min(cost, a.reserved);
    const op: (string | number)[] = [
      'F',
      now,
      grant.id,
      cost,
      `g${a.reserved}`,
      '',
      acct.bal,
      acct.resv,
      acct.und,
      acct.epoch,
    ];
    op.push(
      owner.keyId ? this.keySpendPrefix(owner.keyId) : '',
      utcDay(now),
      utcMonth(now),
      this.keys.usageQueue,
      '',
      input.record ? queuedRecord(input.record, cost) : '',
    );
    const tpm = a.tpm;
    op.push(tpm.length);
    if (tpm.length > 0) {
      op.push(input.actualTokens - a.estimatedTokens);
      for (const r of tpm) op.push(r.k, r.tpm!);
    }
    op.push(0);
    const charged = this.step.run(op);
    // What the call did not cost is the grant's again at once; its hold in Redis never held more.
    grant.money += a.reserved - fromHold;
    grant.inFlight--;
    if (grant.retired && grant.inFlight === 0) this.giveBack(grant);
    return charged.then(Number);
  }

  /** No more calls from this grant; it goes back once its calls have ended. */
  private retire(grant: Grant): void {
    grant.retired = true;
    if (grant.inFlight === 0) this.giveBack(grant);
  }

  /** The grant's unused money back to the balance and quota caps, its unused requests and tokens back to the windows. */
  private giveBack(grant: Grant): void {
    this.renewer.untrack(grant.id);
    this.renewer.untrack(grant.slotMember);
    const now = Date.now() + grant.clockSkew;
    const acct = this.accountKeys(grant.userId);
    // A finish of charge 0 that looks the hold up: what is left of it goes back.
    // Unanswered: the hold lapses back on its own (RESERVATION_TTL_MS), the windows slide on.
    const lapse = () => {};
    this.step
      .run([
        'F',
        now,
        grant.id,
        0,
        '',
        '',
        acct.bal,
        acct.resv,
        acct.und,
        acct.epoch,
        '',
        utcDay(now),
        utcMonth(now),
        this.keys.usageQueue,
        '',
        '',
        0,
        0,
      ])
      .catch(lapse);
    const layers = grant.layers.filter((l) => l.requests > 0 || l.tokens > 0);
    if (layers.length === 0 && grant.slots === 0) return;
    const rest: (string | number)[] = ['R', now, layers.length];
    for (const l of layers)
      rest.push(
        l.layer.k,
        l.layer.rpm ?? '',
        l.layer.tpm ?? '',
        Math.max(0, l.requests),
        Math.max(0, Math.floor(l.tokens)),
      );
    rest.push(grant.slots > 0 ? grant.slotLayers.length : 0);
    if (grant.slots > 0) for (const c of grant.slotLayers) rest.push(`${c.k}:g`, grant.slotMember);
    this.step.run(rest).catch(lapse);
  }

  private dropBundle(id: string, bundle: Bundle): void {
    this.bundles.delete(id);
    if (bundle.current) this.retire(bundle.current);
    if (bundle.next) this.retire(bundle.next);
    bundle.current = bundle.next = undefined;
  }

  /** Drops the grants of a key, or of every key of an account (`user:<id>`): a key change or revocation message. */
  dropGrants(message: string): void {
    const userId = message.startsWith('user:') ? message.slice(5) : undefined;
    for (const [id, bundle] of this.bundles) {
      if (userId ? bundle.key.userId === userId : bundle.key.id === message) this.dropBundle(id, bundle);
    }
  }

  /** Gives back every grant (a stopping process); `settled` then waits for Redis to take them. */
  dropAllGrants(): void {
    for (const [id, bundle] of this.bundles) this.dropBundle(id, bundle);
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private sweep(): void {
    const idleSince = Date.now() - IDLE_MS;
    for (const [id, bundle] of this.bundles) if (bundle.lastUse < idleSince) this.dropBundle(id, bundle);
    if (this.bundles.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  // Key names are built once per account and per key (and quota day), not on every call.
  private accountKeys(userId: string): AccountKeys {
    let names = this.accountNames.get(userId);
    if (!names) {
      if (this.accountNames.size >= NAME_CACHE_SIZE) this.accountNames.clear();
      const k = this.keys;
      names = {
        bal: k.balance(userId),
        resv: k.reservations(userId),
        und: k.undrained(userId),
        epoch: k.epoch(userId),
      };
      this.accountNames.set(userId, names);
    }
    return names;
  }

  private keySpendPrefix(keyId: string): string {
    let prefix = this.keyPrefixes.get(keyId);
    if (prefix === undefined) {
      if (this.keyPrefixes.size >= NAME_CACHE_SIZE) this.keyPrefixes.clear();
      prefix = this.keys.keySpend(keyId);
      this.keyPrefixes.set(keyId, prefix);
    }
    return prefix;
  }

  private quotaKeys(keyId: string, now: number): KeyQuotaKeys {
    const day = utcDay(now);
    const cached = this.quotaNames.get(keyId);
    if (cached && cached.day === day) return cached.names;
    if (this.quotaNames.size >= NAME_CACHE_SIZE) this.quotaNames.clear();
    const names = this.keys.keyQuota(keyId, day, utcMonth(now));
    this.quotaNames.set(keyId, { day, names });
    return names;
  }
}

interface AccountKeys {
  bal: string;
  resv: string;
  und: string;
  epoch: string;
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const NONE: readonly never[] = Object.freeze([]);

const NAME_CACHE_SIZE = 100_000;

/** The record as the usage queue holds it: JSON ending with its charge (see the STEP script's finish). */
function queuedRecord(event: UsageEvent, charge: number): string {
  const json = JSON.stringify(event);
  return `${json.slice(0, -1)},"charged_micro_usd":${charge}}`;
}
