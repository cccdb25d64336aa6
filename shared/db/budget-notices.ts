import { sql } from 'kysely';
import type { SpendPeriods } from '../clock.js';
import type { Db, Trx } from './index.js';

/** A key whose budget's soft threshold has not been mailed for the current period and threshold. */
export interface BudgetNoticeCandidate {
  id: string;
  name: string;
  prefix: string;
  last4: string;
  budget_micro_usd: number;
  budget_period: 'day' | 'week' | 'month' | 'total';
  budget_soft_percent: number;
  email: string;
}

/**
 * Active keys with a soft threshold not yet mailed in the period `labels` names, a page in id
 * order. The threshold is computed exactly (numeric), as shared/keys/budget.ts's softThreshold does.
 */
export function keysAwaitingBudgetNotice(
  db: Db,
  labels: SpendPeriods,
  /** The last key id of the previous page ('' for the first). */
  after: string,
  limit: number,
): Promise<BudgetNoticeCandidate[]> {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .select([
      'k.id',
      'k.name',
      'k.prefix',
      'k.last4',
      sql<number>`k.budget_micro_usd`.as('budget_micro_usd'),
      sql<BudgetNoticeCandidate['budget_period']>`k.budget_period`.as('budget_period'),
      sql<number>`k.budget_soft_percent`.as('budget_soft_percent'),
      'u.email',
    ])
    .where(sql<boolean>`k.budget_soft_percent IS NOT NULL AND k.status = 'active'`)
    .where(
      sql<boolean>`NOT EXISTS (SELECT 1 FROM key_budget_notices n WHERE n.api_key_id = k.id
        AND n.period = CASE k.budget_period WHEN 'day' THEN ${`day-${labels.day}`}
          WHEN 'week' THEN ${`week-${labels.week}`} WHEN 'month' THEN ${`month-${labels.month}`} ELSE 'total' END
        AND n.threshold_micro_usd = ceil(k.budget_micro_usd::numeric * k.budget_soft_percent / 100)::bigint)`,
    )
    .$if(after !== '', (q) => q.where('k.id', '>', after))
    .orderBy('k.id')
    .limit(limit)
    .execute();
}

/** Records a notice; false when it was recorded already (the mail went out, or is going out, once). */
export async function insertBudgetNotice(
  trx: Trx,
  notice: {
    api_key_id: string;
    period: string;
    threshold_micro_usd: number;
    spent_micro_usd: number;
    notified_at: Date;
  },
): Promise<boolean> {
  const row = await trx
    .insertInto('key_budget_notices')
    .values(notice)
    .onConflict((oc) => oc.doNothing())
    .returning('api_key_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Notices of periods long over (a `total` notice stays: that period never ends). */
export async function purgeOldBudgetNotices(db: Db, before: Date): Promise<number> {
  const result = await db
    .deleteFrom('key_budget_notices')
    .where('notified_at', '<', before)
    .where('period', '<>', 'total')
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
