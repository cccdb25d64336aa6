import { sql } from 'kysely';
import type { Db, Trx } from './index.js';
import type { LedgerKind } from './schema.js';

export interface LedgerMove {
  userId: string;
  kind: LedgerKind;
  /** Signed micro-USD: negative for a charge. */
  amount: number;
  requestId: string | null;
  note?: string;
}

/**
 * Moves one balance and appends its ledger entry in the caller's transaction. The row lock taken by
 * the UPDATE orders concurrent moves of one account, so each entry's balance_after is exact.
 * Returns undefined when an entry of this kind already exists for the request id (nothing moved).
 */
export async function applyLedgerMove(trx: Trx, move: LedgerMove): Promise<number | undefined> {
  const inserted = await sql<{ balance_after_micro_usd: number }>`
    WITH moved AS (
      UPDATE users SET balance_micro_usd = balance_micro_usd + ${move.amount}, updated_at = now()
      WHERE id = ${move.userId}
      RETURNING balance_micro_usd
    )
    INSERT INTO ledger_entries (user_id, kind, amount_micro_usd, balance_after_micro_usd, request_id, note)
    SELECT ${move.userId}, ${move.kind}, ${move.amount}, moved.balance_micro_usd, ${move.requestId}, ${move.note ?? null}
    FROM moved
    RETURNING balance_after_micro_usd`.execute(trx);
  return inserted.rows[0]?.balance_after_micro_usd;
}

export async function ledgerSum(trx: Trx | Db, userId: string): Promise<number> {
  const row = await trx
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_micro_usd'), sql<number>`0`).as('sum'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.sum);
}
