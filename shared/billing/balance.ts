import type { Redis } from 'ioredis';
import type { Db } from '../db/index.js';
import { settledBalance } from '../db/users.js';
import type { RedisKeys } from '../redis/keys.js';
import { ACK_DRAINED, CREDIT, LOAD_BALANCE, RELEASE, RESERVE, SETTLE } from './scripts.js';

type Reply = Promise<unknown>;
declare module 'ioredis' {
  interface RedisCommander {
    gwReserve(bal: string, resv: string, amt: string, now: number, id: string, amount: number, expires: number): Reply;
    gwSettle(bal: string, resv: string, amt: string, und: string, epoch: string, stream: string, id: string, cost: number, rec: string): Reply;
    gwRelease(bal: string, resv: string, amt: string, id: string): Reply;
    gwLoadBalance(bal: string, epoch: string, seen: string, value: number): Reply;
    gwCredit(bal: string, epoch: string, amount: number): Reply;
    gwAckDrained(stream: string, group: string, ...triples: (string | number)[]): Reply;
  }
}

/** Registers the money scripts on a connection (EVALSHA with a transparent reload after a Redis restart). */
export function defineBillingScripts(redis: Redis): void {
  redis.defineCommand('gwReserve', { numberOfKeys: 3, lua: RESERVE });
  redis.defineCommand('gwSettle', { numberOfKeys: 6, lua: SETTLE });
  redis.defineCommand('gwRelease', { numberOfKeys: 3, lua: RELEASE });
  redis.defineCommand('gwLoadBalance', { numberOfKeys: 2, lua: LOAD_BALANCE });
  redis.defineCommand('gwCredit', { numberOfKeys: 2, lua: CREDIT });
  redis.defineCommand('gwAckDrained', { numberOfKeys: 1, lua: ACK_DRAINED });
}

export type ReserveOutcome = { ok: true; balance: number } | { ok: false; balance: number };

/**
 * The spendable balance lives in Redis so admission costs one round trip; Postgres (the ledger)
 * stays the truth and Redis is loaded from it on first use.
 */
export class BalanceStore {
  constructor(
    private readonly redis: Redis,
    private readonly db: Db,
    private readonly keys: RedisKeys,
  ) {}

  /** Takes `amount` out of the spendable balance until settle/release, or until `ttlMs` passes. */
  async reserve(userId: string, reservationId: string, amount: number, ttlMs: number): Promise<ReserveOutcome> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = Date.now();
      const k = this.keys;
      const reply = (await this.redis.gwReserve(
        k.balance(userId), k.reservations(userId), k.reservationAmounts(userId), now, reservationId, amount, now + ttlMs,
      )) as number[];
      if (reply[0] === 1) return { ok: true, balance: reply[1] ?? 0 };
      if (reply[0] === -2) return { ok: false, balance: reply[1] ?? 0 };
      await this.load(userId);
    }
    throw new Error(`balance of ${userId} could not be loaded`);
  }

  /** Charges `cost` (capped at the reservation) and queues the usage record; returns the amount charged. */
  async settle(userId: string, reservationId: string, cost: number, record: string): Promise<number> {
    const k = this.keys;
    const charged = await this.redis.gwSettle(
      k.balance(userId), k.reservations(userId), k.reservationAmounts(userId), k.undrained(userId), k.epoch(userId),
      k.usageStream, reservationId, cost, record,
    );
    return Number(charged);
  }

  async release(userId: string, reservationId: string): Promise<void> {
    const k = this.keys;
    await this.redis.gwRelease(k.balance(userId), k.reservations(userId), k.reservationAmounts(userId), reservationId);
  }

  /** After a credit was committed in Postgres. */
  async credited(userId: string, amount: number): Promise<void> {
    await this.redis.gwCredit(this.keys.balance(userId), this.keys.epoch(userId), amount);
  }

  /** The exact balance now: settled in Postgres minus charges still queued for it. */
  async currentBalance(userId: string): Promise<{ settled: number; pending: number; balance: number } | undefined> {
    const pending = Number((await this.redis.get(this.keys.undrained(userId))) ?? 0);
    const settled = await settledBalance(this.db, userId);
    if (settled === undefined) return undefined;
    return { settled, pending, balance: settled - pending };
  }

  /**
   * Order matters: `undrained` is read before Postgres, so a batch applied in between is counted
   * twice (too little spendable for a moment) rather than not at all (overspending).
   */
  private async load(userId: string): Promise<void> {
    for (;;) {
      const [epoch, undrained] = await this.redis.mget(this.keys.epoch(userId), this.keys.undrained(userId));
      const settled = await settledBalance(this.db, userId);
      if (settled === undefined) throw new Error(`unknown account ${userId}`);
      const value = settled - Number(undrained ?? 0);
      const result = Number(await this.redis.gwLoadBalance(this.keys.balance(userId), this.keys.epoch(userId), epoch ?? '0', value));
      if (result !== -1) return;
    }
  }
}
