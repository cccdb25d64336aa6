import type { ApiKeyContext } from '../keys/api-key.js';
import type { BudgetPeriod } from '../keys/budget.js';
import type { ConcurrencyRule, RateLayer } from './layers.js';
import type { LimitKeyNames } from './limit-keys.js';

/** The spend counter (shared/redis/keys.ts) each budget period is counted against. */
const BUDGET_COUNTER: Record<BudgetPeriod, 't' | 'd' | 'w' | 'm'> = { total: 't', day: 'd', week: 'w', month: 'm' };

/** One STEP operation: its marker and fields, flat, in the order the STEP script reads them (shared/limits/lua/step-common.lua). */
export type StepOp = (string | number)[];

export interface AdmitFields {
  key: ApiKeyContext;
  now: number;
  /** The call's id, or the grant's. */
  id: string;
  /** Micro-USD reserved. */
  amount: number;
  reservationExpiry: number;
  /** Taken against TPM at every layer. */
  tokens: number;
  rates: readonly RateLayer[];
  concurrency: readonly ConcurrencyRule[];
  leaseTtlMs: number;
}

/**
 * Appends the fields of an admission (A) or a grant (G) to `op`; returns the key's reserved-spend
 * counter when the reservation also holds its quota caps and budget, else ''.
 */
export function pushAdmitFields(op: StepOp, names: LimitKeyNames, f: AdmitFields): string {
  const acct = names.account(f.key.userId);
  const { total, daily, monthly } = f.key.quota;
  const { budget } = f.key;
  const capped = total !== null || daily !== null || monthly !== null || budget !== null;
  const q = capped ? names.quota(f.key.id, f.now) : undefined;
  op.push(f.now, f.id, f.amount, f.reservationExpiry, acct.bal, acct.resv);
  if (q) {
    op.push('1', q.t, q.d, q.m, q.r, total ?? '', daily ?? '', monthly ?? '');
    if (budget) op.push(q[BUDGET_COUNTER[budget.period]], budget.limit, budget.period);
    else op.push('', '', '');
  } else op.push('0');
  op.push(f.rates.length);
  if (f.rates.length > 0) {
    // A request costs 1 against RPM (a grant: its size); the estimated tokens against TPM, the same at every layer.
    op.push(f.tokens);
    for (const r of f.rates) op.push(r.k, r.layer, r.rpm ?? '', r.tpm ?? '');
  }
  op.push(f.concurrency.length);
  if (f.concurrency.length > 0) {
    op.push(f.now + f.leaseTtlMs, f.leaseTtlMs);
    for (const c of f.concurrency) op.push(c.k, c.limit, c.layer);
  }
  return q?.r ?? '';
}
