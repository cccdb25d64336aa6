import type { QuotaStore } from '../billing/quota.js';
import { utcPeriods } from '../clock.js';
import {
  type BudgetNoticeCandidate,
  insertBudgetNotice,
  keysAwaitingBudgetNotice,
  purgeOldBudgetNotices,
} from '../db/budget-notices.js';
import type { Db } from '../db/index.js';
import type { JobQueues } from '../jobs/queues.js';
import { BUDGET_ADJECTIVE, budgetOfRow, budgetWindow, type KeyBudget, softThreshold, spentInPeriod } from './budget.js';

// Short enough for one header line: a folded subject reads badly in some clients.
export const BUDGET_NOTICE_SUBJECT = "An API key reached its budget's soft threshold";

/**
 * Keys read from Postgres at a time, and spend counters read from Redis at once (not more: counters
 * Redis lost are loaded from Postgres, and a crowd of loads would hit it together).
 */
const PAGE = 1_000;
const SPEND_READS = 50;
const NOTICE_KEEP_MS = 40 * 86_400_000;

/**
 * Mails the owner of every active key whose spend in its budget's current period reached the soft
 * threshold, once per key, period and threshold. Run by the maintenance sweep (every
 * MAINTENANCE_EVERY_MS): the notice follows the crossing within one sweep, whichever process,
 * call or task charged it. The notice row and the mail job are written together: the row commits
 * only once the job is queued, and the job id is the notice's, so a sweep that dies between the two
 * queues the same job again (a no-op) instead of a second mail.
 */
export async function mailBudgetNotices(
  s: { db: Db; jobs: JobQueues; quotas: QuotaStore },
  now: number,
): Promise<number> {
  await purgeOldBudgetNotices(s.db, new Date(now - NOTICE_KEEP_MS));
  let mailed = 0;
  let after = '';
  for (;;) {
    const page = await keysAwaitingBudgetNotice(s.db, utcPeriods(now), after, PAGE);
    for (let i = 0; i < page.length; i += SPEND_READS) {
      const chunk = page.slice(i, i + SPEND_READS);
      const reached = await Promise.all(chunk.map((key) => thresholdReached(s.quotas, key, now)));
      for (const r of reached) if (r && (await notify(s, r, now))) mailed++;
    }
    if (page.length < PAGE) return mailed;
    after = page[page.length - 1]!.id;
  }
}

interface Reached {
  key: BudgetNoticeCandidate;
  budget: KeyBudget;
  threshold: number;
  spent: number;
}

/** The key's budget state when its period's settled spend reached the soft threshold, else undefined. */
async function thresholdReached(quotas: QuotaStore, key: BudgetNoticeCandidate, now: number) {
  const budget = budgetOfRow(key);
  const threshold = budget && softThreshold(budget);
  if (!budget || threshold === null) return undefined;
  // Settled charges only (the spend counters): a call in flight may still cost less than reserved.
  const spent = spentInPeriod(budget.period, await quotas.spend(key.id, now));
  return spent >= threshold ? ({ key, budget, threshold, spent } satisfies Reached) : undefined;
}

async function notify(s: { db: Db; jobs: JobQueues }, r: Reached, now: number): Promise<boolean> {
  const period = budgetWindow(r.budget.period, now);
  return s.db.transaction().execute(async (trx) => {
    const fresh = await insertBudgetNotice(trx, {
      api_key_id: r.key.id,
      period: period.label,
      threshold_micro_usd: r.threshold,
      spent_micro_usd: r.spent,
      notified_at: new Date(now),
    });
    if (fresh)
      await s.jobs.enqueue('mail', noticeMail(r, period.end), {
        jobId: `mail-budget-${r.key.id}-${period.label}-${r.threshold}`,
      });
    return fresh;
  });
}

const PERIOD_WORDS = { day: 'today (UTC)', week: 'this ISO week (UTC)', month: 'this month (UTC)', total: 'in total' };

function noticeMail({ key, budget, threshold, spent }: Reached, end: Date | null) {
  // ASCII and short lines: the mail goes out 7-bit, readable as sent.
  const text = [
    `An API key of your account has spent ${usd(spent)} ${PERIOD_WORDS[budget.period]},`,
    `${budget.softPercent}% or more of its ${BUDGET_ADJECTIVE[budget.period]} budget.`,
    '',
    `  name:      ${key.name || '(none)'}`,
    `  key:       ${key.prefix}...${key.last4}`,
    `  budget:    ${usd(budget.limit)} (${budget.period})`,
    `  threshold: ${usd(threshold)} (${budget.softPercent}%)`,
    `  spent:     ${usd(spent)}`,
    ...(end ? [`  resets:    ${end.toISOString()}`] : []),
    '',
    'Calls that would take the key past its budget are refused (402 budget_exceeded).',
    'To allow more, raise the budget in the console. This notice is sent once per period.',
  ].join('\n');
  return { to: key.email, subject: BUDGET_NOTICE_SUBJECT, text };
}

/** Micro-USD as dollars, to the micro-dollar but without trailing zeros past the cents. */
function usd(micro: number): string {
  return `$${(micro / 1e6).toFixed(6).replace(/0{1,4}$/, '')}`;
}
