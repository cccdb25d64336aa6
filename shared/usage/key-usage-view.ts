import { findKeyById } from '../db/api-keys.js';
import { keyUsageByModel, recentKeyCalls } from '../db/usage-records.js';
import type { GatewayServices } from '../gateway/services.js';
import type { KeySpend } from '../billing/quota.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import { budgetWindow, type KeyBudget, softThreshold, spentInPeriod } from '../keys/budget.js';
import { keyView } from '../keys/key-settings.js';

const DAY_MS = 86_400_000;

/**
 * The spec's key usage view: only this key's own data. Spend (`used_*`) is exact to the last call;
 * the 30-day table and recent calls come from usage records, which land within about a second.
 */
export async function keyUsageView(services: GatewayServices, key: ApiKeyContext) {
  const now = services.clock.now();
  const since = new Date(now - 30 * DAY_MS);
  const [row, spend, models, recent] = await Promise.all([
    findKeyById(services.db, key.id),
    services.quotas.spend(key.id, now),
    keyUsageByModel(services.db, key.id, since),
    recentKeyCalls(services.db, key.id, 20),
  ]);
  if (!row) throw new Error(`key ${key.id} vanished`);
  const quota: Record<string, number | null> = {};
  for (const [period, used] of [
    ['total', spend.total],
    ['daily', spend.daily],
    ['monthly', spend.monthly],
  ] as const) {
    const cap = key.quota[period];
    quota[`${period}_micro_usd`] = cap;
    quota[`used_${period}_micro_usd`] = used;
    if (cap !== null) quota[`remaining_${period}_micro_usd`] = Math.max(0, cap - used);
  }
  const total = models.reduce(
    (t, m) => ({
      requests: t.requests + m.requests,
      errors: t.errors + m.errors,
      input_tokens: t.input_tokens + m.input_tokens,
      output_tokens: t.output_tokens + m.output_tokens,
      cached_tokens: t.cached_tokens + m.cached_tokens,
      charged_micro_usd: t.charged_micro_usd + m.charged_micro_usd,
    }),
    { requests: 0, errors: 0, input_tokens: 0, output_tokens: 0, cached_tokens: 0, charged_micro_usd: 0 },
  );
  return {
    key: (({ name, prefix, last4, status, expires_at, created_at }) => ({
      name,
      prefix,
      last4,
      status,
      expires_at,
      created_at,
    }))(keyView(row)),
    quota,
    budget: key.budget && budgetUsage(key.budget, spend, now),
    limits: { rpm_limit: key.limits.rpm, tpm_limit: key.limits.tpm, concurrency_limit: key.limits.concurrency },
    /** The key's response-cache TTL in seconds (null: not set on the key; a preset or X-Service-Cache-TTL may set one). */
    cache_ttl_seconds: key.cacheTtlSeconds,
    last_30_days: { start: since.toISOString(), end: new Date(now).toISOString(), models, total },
    recent: recent.map((r) => ({ ...r, created_at: r.created_at.toISOString() })),
  };
}

/** The budget with its current period and what is spent in it (settled charges, exact to the last call). */
function budgetUsage(budget: KeyBudget, spend: KeySpend, now: number) {
  const window = budgetWindow(budget.period, now);
  const used = spentInPeriod(budget.period, spend);
  return {
    limit_micro_usd: budget.limit,
    period: budget.period,
    period_start: window.start?.toISOString() ?? null,
    period_end: window.end?.toISOString() ?? null,
    used_micro_usd: used,
    remaining_micro_usd: Math.max(0, budget.limit - used),
    soft_threshold_percent: budget.softPercent,
    soft_threshold_micro_usd: softThreshold(budget),
  };
}
