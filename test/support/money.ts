import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
// Independent arithmetic and ledger queries for the charging tests: nothing here imports the
// gateway's own pricing, so a wrong rule in the product cannot make its own test pass.
import type { Db } from '../../shared/db/index.js';
import { usageDrained } from '../../shared/usage/drain.js';
import type { Message } from './http.js';
import type { TestGateway } from './gateway.js';

/** The simulator's documented rule: 3 per message plus its whitespace-separated words, plus 3. */
export function simPromptTokens(messages: readonly Message[]): number {
  return messages.reduce((sum, m) => sum + 3 + m.content.split(/\s+/).filter(Boolean).length, 3);
}

/** What the simulator answers when no max_tokens / max_completion_tokens is set. */
export const SIM_DEFAULT_COMPLETION = 16;

export interface Price {
  input_per_mtok: number;
  output_per_mtok: number;
  per_request?: number;
}

/** Exact micro-USD × tokens summed, divided by a million and rounded up once per call. */
export function pricedMicroUsd(price: Price, inputTokens: number, outputTokens: number): number {
  const scaled =
    BigInt(inputTokens) * BigInt(price.input_per_mtok) + BigInt(outputTokens) * BigInt(price.output_per_mtok);
  const whole = scaled / 1_000_000n + (scaled % 1_000_000n === 0n ? 0n : 1n);
  return Number(whole) + (price.per_request ?? 0);
}

export function usageRecords(db: Db, userId: string) {
  return db
    .selectFrom('usage_records')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function ledgerRows(db: Db, userId: string) {
  return db.selectFrom('ledger_entries').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export async function usersBalance(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select('balance_micro_usd')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return row.balance_micro_usd;
}

/** Waits (bounded) until every queued usage record is in Postgres. */
export async function drained(gw: TestGateway, timeoutMs = 3_000): Promise<void> {
  const start = performance.now();
  while (!(await usageDrained(gw.services.redis, gw.services.redisKeys))) {
    if (performance.now() - start > timeoutMs) throw new Error('the usage stream was not drained in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Waits until `count` usage records of the account are in Postgres (settlement may lag a client that hung up). */
export async function waitForUsage(gw: TestGateway, userId: string, count: number, timeoutMs = 3_000) {
  const start = performance.now();
  for (;;) {
    await drained(gw);
    const rows = await usageRecords(gw.services.db, userId);
    if (rows.length >= count) return rows;
    if (performance.now() - start > timeoutMs) throw new Error(`expected ${count} usage records, found ${rows.length}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Checks the ledger of one account against itself: every row's balance_after is the previous one
 * plus its amount, and the last equals users.balance_micro_usd. Returns the charge rows.
 */
export async function expectConsistentLedger(db: Db, userId: string) {
  const rows = await ledgerRows(db, userId);
  let running = 0;
  for (const row of rows) {
    running += row.amount_micro_usd;
    if (row.balance_after_micro_usd !== running) {
      throw new Error(`ledger row ${row.id}: balance_after ${row.balance_after_micro_usd}, expected ${running}`);
    }
  }
  const balance = await usersBalance(db, userId);
  if (balance !== running) throw new Error(`users.balance_micro_usd ${balance} but the ledger sums to ${running}`);
  return rows.filter((r) => r.kind === 'charge');
}

/** The reservation's prompt bound for plain-text messages on an o200k model (shared/billing/prompt-tokens.ts), computed independently. */
export function o200kPromptTokens(messages: readonly { role: string; content: string }[]): number {
  return messages.reduce((sum, m) => sum + 4 + countTokens(m.role) + countTokens(m.content), 3);
}
