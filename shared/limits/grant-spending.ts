import type { AdmissionInput, AdmissionOptions, Admitted, FinishInput } from './admission-types.js';
import { NO_HEADERS, NONE } from './admission-types.js';
import { flatRateHeaders } from './admission-answers.js';
import { pushAdmitFields, type StepOp } from './admit-fields.js';
import { Bundle, bundleKey, EXACT_FOR_MS, type Grant, GRANT_ROOM, IDLE_MS, newGrantId } from './grants.js';
import type { LimitRules } from './layers.js';
import type { LeaseRenewer } from './lease-renewer.js';
import type { LimitKeyNames } from './limit-keys.js';
import { finishOp } from './settlement.js';
import type { StepBatch } from './step-batch.js';

/** Loads of the money counters Redis does not hold yet (shared by concurrent callers). */
export interface CounterLoads {
  balance(userId: string): Promise<void>;
  quota(keyId: string, now: number): Promise<void>;
}

/**
 * The process's grants (shared/limits/grants.ts): calls admitted from a key's grant without a round
 * trip, the next grant asked for when the current one runs low, and what is left given back when a
 * grant retires (the key idle, changed or revoked, the process stopping).
 */
export class GrantSpending {
  private readonly bundles = new Map<string, Bundle>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly step: StepBatch,
    private readonly names: LimitKeyNames,
    private readonly renewer: LeaseRenewer,
    private readonly loads: CounterLoads,
    private readonly options: AdmissionOptions,
  ) {}

  /** A call admitted from the key's grant, or undefined (no grant, or it does not cover the call: a new one is asked for). */
  take(input: AdmissionInput, rules: LimitRules): Admitted | undefined {
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

  /** Ends a call admitted from a grant: charged from the grant's hold up to what it took, the rest from the balance. */
  finish(input: FinishInput, a: Admitted, grant: Grant): Promise<number> {
    const cost = input.cost;
    const op = finishOp(this.names, {
      now: input.now,
      id: grant.id,
      charge: cost,
      held: `g${a.reserved}`,
      quotaReserved: '',
      userId: input.owner.userId,
      keyId: input.owner.keyId,
      once: '',
      record: input.record,
      tpm: a.tpm,
      tokenDelta: input.actualTokens - a.estimatedTokens,
      concurrencyKeys: NONE,
    });
    const charged = this.step.run(op);
    // What the call did not cost is the grant's again at once; its hold in Redis never held more.
    grant.money += a.reserved - Math.min(cost, a.reserved);
    grant.inFlight--;
    if (grant.retired && grant.inFlight === 0) this.giveBack(grant);
    return charged.then(Number);
  }

  /** Drops the grants of a key, or of every key of an account (`user:<id>`): a key change or revocation message. */
  dropGrants(message: string): void {
    const userId = message.startsWith('user:') ? message.slice(5) : undefined;
    for (const [id, bundle] of this.bundles) {
      if (userId ? bundle.key.userId === userId : bundle.key.id === message) this.dropBundle(id, bundle);
    }
  }

  /** Gives back every grant (a stopping process). */
  dropAll(): void {
    for (const [id, bundle] of this.bundles) this.dropBundle(id, bundle);
    clearInterval(this.sweeper);
    this.sweeper = undefined;
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
      const op: StepOp = ['G', size.requests, size.slots, GRANT_ROOM];
      pushAdmitFields(op, this.names, {
        key: bundle.key,
        now,
        id: grantId,
        amount: size.money,
        reservationExpiry: now + this.options.reservationTtlMs,
        tokens: size.tokens,
        rates: bundle.rules.rates,
        concurrency: bundle.rules.concurrency,
        leaseTtlMs: this.options.leaseTtlMs,
      });
      const raw = await this.step.run(op);
      if (raw === 'load_balance') return void (await this.loads.balance(bundle.key.userId));
      if (raw === 'load_quota') return void (await this.loads.quota(bundle.key.id, now));
      if (raw !== 'ok' && !raw.startsWith('ok ')) {
        bundle.exactUntil = Date.now() + EXACT_FOR_MS;
        return;
      }
      const grant = bundle.newGrant(size, raw === 'ok' ? NO_HEADERS : flatRateHeaders(raw), grantId);
      grant.clockSkew = now - Date.now();
      // Its hold and its slots are renewed like a call's reservation and leases while it lives.
      this.renewer.track(grantId, this.names.account(bundle.key.userId).resv, NONE);
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
    // A finish of charge 0 that looks the hold up: what is left of it goes back.
    // Unanswered: the hold lapses back on its own (RESERVATION_TTL_MS), the windows slide on.
    const lapse = () => {};
    const release = finishOp(this.names, {
      now,
      id: grant.id,
      charge: 0,
      held: '',
      quotaReserved: '',
      userId: grant.userId,
      keyId: '',
      once: '',
      record: undefined,
      tpm: NONE,
      tokenDelta: 0,
      concurrencyKeys: NONE,
    });
    this.step.run(release).catch(lapse);
    const layers = grant.layers.filter((l) => l.requests > 0 || l.tokens > 0);
    if (layers.length === 0 && grant.slots === 0) return;
    // R now n [k rpm tpm requests tokens]… m [slot set, member]…
    const rest: StepOp = ['R', now, layers.length];
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

  private sweep(): void {
    const idleSince = Date.now() - IDLE_MS;
    for (const [id, bundle] of this.bundles) if (bundle.lastUse < idleSince) this.dropBundle(id, bundle);
    if (this.bundles.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}
