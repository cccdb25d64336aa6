import type { Db } from '../db/index.js';
import { applyLedgerMove } from '../db/ledger.js';
import { badRequest } from '../errors.js';
import type { BalanceStore } from './balance.js';

/** Adds money to an account: ledger and balance in Postgres first, then the live balance in Redis. */
export async function creditBalance(
  db: Db,
  balances: BalanceStore,
  userId: string,
  amount: number,
  note: string,
): Promise<number> {
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw badRequest('must be a positive whole number of micro-USD', 'micro_usd');
  const after = await db
    .transaction()
    .execute((trx) => applyLedgerMove(trx, { userId, kind: 'credit', amount, requestId: null, note }));
  if (after === undefined) throw badRequest('unknown account', 'email');
  await balances.credited(userId, amount);
  return after;
}
