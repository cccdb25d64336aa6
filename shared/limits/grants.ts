import type { Group } from '../catalog/index.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import { randomBase62 } from '../ids.js';
import type { ConcurrencyRule, LimitRules, RateLayer } from './layers.js';

/** How many times a grant must fit in what a subject has left: nearer its limits, calls are decided one by one. */
export const GRANT_ROOM = 4;
/** A grant lasts about this much of its bundle's traffic. */
const GRANT_SECONDS = 2;
/** A key with fewer calls than this per grant (a few per second) gains nothing from one: decided call by call. */
const MIN_REQUESTS = 8;
const MAX_REQUESTS = 1_000;
/** Fewer concurrency slots than this per grant would serve too few calls at once: decided call by call. */
const MIN_SLOTS = 4;
/** Money and tokens are taken with this margin over the average call's. */
const MARGIN = 1.25;
/** After a refused grant, calls of the bundle are decided one by one for this long. */
export const EXACT_FOR_MS = 1_000;
/** A bundle unused this long gives its grant back. */
export const IDLE_MS = 1_000;

export interface GrantSize {
  requests: number;
  money: number;
  tokens: number;
  /** Concurrency slots at each layer that limits concurrency (0 when none does). */
  slots: number;
}

interface LayerLeft {
  layer: RateLayer;
  requests: number;
  tokens: number;
}

/** What one grant has left locally; its money is also its Redis hold (id → amount) in the account's reservations. */
export class Grant {
  inFlight = 0;
  retired = false;
  /** Domain time minus wall time when granted: what is given back is dated on the same clock. */
  clockSkew = 0;

  constructor(
    readonly id: string,
    readonly userId: string,
    public money: number,
    readonly layers: LayerLeft[],
    /** Rate-limit headers as Redis answered the grant (remaining after it), per dimension. */
    readonly headers: Record<string, string>,
    /** Concurrency slots held at each of `slotLayers` (0 = no layer limits concurrency). */
    readonly slots: number,
    readonly slotLayers: readonly ConcurrencyRule[],
  ) {
    this.initialMoney = money;
    this.initialRequests = layers.length > 0 ? layers[0]!.requests : 0;
    this.initialTokens = layers.length > 0 ? layers[0]!.tokens : 0;
  }

  private readonly initialMoney: number;
  private readonly initialRequests: number;
  private readonly initialTokens: number;

  /** The member under which this grant's slots are held in each layer's `<layer key>:g` set. */
  get slotMember(): string {
    return `${this.id}:${this.slots}`;
  }

  /** Half spent: time to ask for the next grant, so that calls do not wait for it. */
  low(): boolean {
    if (this.money < this.initialMoney / 2) return true;
    return this.layers.some(
      (l) =>
        (l.layer.rpm !== null && l.requests < this.initialRequests / 2) ||
        (l.layer.tpm !== null && l.tokens < this.initialTokens / 2),
    );
  }

  /** Takes one call's share if the grant covers it (nothing otherwise). */
  take(maxCost: number, tokens: number): boolean {
    if (this.retired || maxCost > this.money) return false;
    if (this.slotLayers.length > 0 && this.inFlight >= this.slots) return false;
    for (const l of this.layers) {
      if (l.layer.rpm !== null && l.requests < 1) return false;
      if (l.layer.tpm !== null && l.tokens < tokens) return false;
    }
    this.money -= maxCost;
    for (const l of this.layers) {
      l.requests -= 1;
      l.tokens -= tokens;
    }
    this.inFlight++;
    return true;
  }

  /** The headers of a call admitted from it: Redis's figures plus what this grant still holds. */
  callHeaders(): Record<string, string> {
    if (!this.headers['X-RateLimit-Remaining-Requests'] && !this.headers['X-RateLimit-Remaining-Tokens'])
      return this.headers;
    const out = { ...this.headers };
    const requests = Math.min(...this.layers.filter((l) => l.layer.rpm !== null).map((l) => l.requests));
    const tokens = Math.min(...this.layers.filter((l) => l.layer.tpm !== null).map((l) => l.tokens));
    if (out['X-RateLimit-Remaining-Requests'] && Number.isFinite(requests))
      out['X-RateLimit-Remaining-Requests'] = String(
        Number(out['X-RateLimit-Remaining-Requests']) + Math.max(0, Math.floor(requests)),
      );
    if (out['X-RateLimit-Remaining-Tokens'] && Number.isFinite(tokens))
      out['X-RateLimit-Remaining-Tokens'] = String(
        Number(out['X-RateLimit-Remaining-Tokens']) + Math.max(0, Math.floor(tokens)),
      );
    return out;
  }
}

/** The grant of one key under one group (its account's balance, its quota caps, its rate layers). */
export class Bundle {
  current: Grant | undefined;
  /** Asked for while `current` ran low; takes over when `current` no longer covers a call. */
  next: Grant | undefined;
  refilling = false;
  exactUntil = 0;
  lastUse = 0;
  private bucketStart = 0;
  private bucketCalls = 0;
  private previousCalls = 0;
  private avgCost = 0;
  private avgTokens = 0;

  constructor(
    readonly key: ApiKeyContext,
    readonly group: Group,
    readonly rules: LimitRules,
  ) {}

  /** Counts a call (for the grant's size). */
  observe(now: number, maxCost: number, tokens: number): void {
    if (now - this.bucketStart >= 1_000) {
      this.previousCalls = now - this.bucketStart >= 2_000 ? 0 : this.bucketCalls;
      this.bucketStart = now;
      this.bucketCalls = 0;
    }
    this.bucketCalls++;
    this.lastUse = now;
    // Averages that follow the recent calls (one in 16 of the weight each).
    this.avgCost = this.avgCost === 0 ? maxCost : this.avgCost + (maxCost - this.avgCost) / 16;
    this.avgTokens = this.avgTokens === 0 ? tokens : this.avgTokens + (tokens - this.avgTokens) / 16;
  }

  /**
   * The next grant's size: a few seconds of this bundle's traffic, at most 1/(2 × GRANT_ROOM) of any
   * layer's limit (so that a free window can grant it); undefined when the traffic is too slow to
   * gain from a grant or a limit too small for the least one (the bundle is then decided call by call).
   */
  nextSize(): GrantSize | undefined {
    // Calls per second: the last whole second's, or this second's so far (from 100 ms on).
    const elapsed = Math.max(0.1, (Date.now() - this.bucketStart) / 1000);
    const rate = Math.max(this.previousCalls, this.bucketCalls / elapsed);
    let requests = Math.min(MAX_REQUESTS, Math.ceil(rate * GRANT_SECONDS));
    let tokens = Math.ceil(this.avgTokens * MARGIN) * requests;
    for (const r of this.rules.rates) {
      if (r.rpm !== null) requests = Math.min(requests, Math.floor(r.rpm / (2 * GRANT_ROOM)));
      if (r.tpm !== null) tokens = Math.min(tokens, Math.floor(r.tpm / (2 * GRANT_ROOM)));
    }
    // Slots: as many as calls the grant serves, within 1/(2 × GRANT_ROOM) of every concurrency limit.
    let slots = this.rules.concurrency.length > 0 ? requests : 0;
    for (const c of this.rules.concurrency) slots = Math.min(slots, Math.floor(c.limit / (2 * GRANT_ROOM)));
    if (requests < MIN_REQUESTS || tokens < this.avgTokens * MIN_REQUESTS) return undefined;
    if (this.rules.concurrency.length > 0 && slots < MIN_SLOTS) return undefined;
    return { requests, money: Math.ceil(this.avgCost * MARGIN) * requests, tokens, slots };
  }

  newGrant(size: GrantSize, headers: Record<string, string>, id: string): Grant {
    const layers = this.rules.rates.map((layer) => ({ layer, requests: size.requests, tokens: size.tokens }));
    return new Grant(id, this.key.userId, size.money, layers, headers, size.slots, this.rules.concurrency);
  }
}

export const newGrantId = () => `grant_${randomBase62(20)}`;

/** A bundle per key and group: calls with the same key context, group and rules share a grant. */
export function bundleKey(key: ApiKeyContext, group: Group): string {
  return `${key.id}\u0000${group.id}`;
}
