import type { AssetAccess, Key, KeyBudget } from '../api/models';
import type { paths } from '../api/schema';
import { parseUsd, usdField } from '../format';

export type KeyCreateBody = paths['/api/v1/keys']['post']['requestBody']['content']['application/json'];
export type KeyUpdateBody = paths['/api/v1/keys/{id}']['patch']['requestBody']['content']['application/json'];

/** The key form as typed: every field a string or a flag, turned into the API's body by `toBody`. */
export interface KeyFormState {
  name: string;
  group: string;
  expires_at: string;
  ip_allowlist: string;
  rpm_limit: string;
  tpm_limit: string;
  concurrency_limit: string;
  total_usd: string;
  daily_usd: string;
  monthly_usd: string;
  /** The budget's limit in USD; empty = no budget (removed on save). */
  budget_usd: string;
  budget_period: KeyBudget['period'];
  /** Percent of the budget that mails the owner once per period; empty = no mail. */
  budget_soft_percent: string;
  tags: string;
  asset_access: AssetAccess;
  usage_access: boolean;
  default_preset: string;
  cache_ttl_seconds: string;
  kind: 'standard' | 'private';
}

export type KeyField =
  | Exclude<keyof KeyFormState, 'kind' | 'usage_access' | 'asset_access' | 'budget_period'>
  | 'asset_access'
  | 'budget_period';

const count = (n: number | null) => (n === null ? '' : String(n));

/** A datetime-local value (the browser's time zone) from an ISO instant. */
function localInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

export function formOf(key?: Key): KeyFormState {
  return {
    name: key?.name ?? '',
    group: key?.group ?? 'default',
    expires_at: localInput(key?.expires_at ?? null),
    ip_allowlist: key?.ip_allowlist.join('\n') ?? '',
    rpm_limit: count(key?.rpm_limit ?? null),
    tpm_limit: count(key?.tpm_limit ?? null),
    concurrency_limit: count(key?.concurrency_limit ?? null),
    total_usd: usdField(key?.total_micro_usd),
    daily_usd: usdField(key?.daily_micro_usd),
    monthly_usd: usdField(key?.monthly_micro_usd),
    budget_usd: usdField(key?.budget?.limit_micro_usd),
    budget_period: key?.budget?.period ?? 'month',
    budget_soft_percent: count(key?.budget?.soft_threshold_percent ?? null),
    tags: key?.tags.join(', ') ?? '',
    asset_access: key?.asset_access ?? 'own',
    usage_access: key?.usage_access ?? false,
    default_preset: key?.default_preset ?? '',
    cache_ttl_seconds: count(key?.cache_ttl_seconds ?? null),
    kind: 'standard',
  };
}

/** The body of a create or update, or the fields the form itself finds wrong (before any request). */
export function toBody(
  f: KeyFormState,
): { body: KeyUpdateBody & KeyCreateBody } | { errors: Partial<Record<KeyField, string>> } {
  const errors: Partial<Record<KeyField, string>> = {};
  const whole = (field: KeyField, text: string): number | null => {
    if (text.trim() === '') return null;
    if (!/^\d{1,10}$/.test(text.trim())) errors[field] = 'Enter a whole number, or leave empty for no limit.';
    return Number(text.trim());
  };
  const usd = (field: KeyField, text: string): number | null => {
    if (text.trim() === '') return null;
    const micro = parseUsd(text);
    if (micro === undefined)
      errors[field] = 'Enter an amount in USD such as 25 or 0.50 (up to 6 decimals), or leave empty for no cap.';
    return micro ?? null;
  };
  const budgetLimit = usd('budget_usd', f.budget_usd);
  let soft: number | null = null;
  if (f.budget_soft_percent.trim() !== '') {
    soft = Number(f.budget_soft_percent.trim());
    if (!/^\d{1,3}$/.test(f.budget_soft_percent.trim()) || soft < 1 || soft > 100)
      errors.budget_soft_percent = 'Enter a whole percent from 1 to 100, or leave empty for no warning mail.';
    else if (budgetLimit === null) errors.budget_soft_percent = 'Set a budget first: the warning is a percent of it.';
  }
  let expires: string | null = null;
  if (f.expires_at) {
    const at = new Date(f.expires_at);
    if (Number.isNaN(at.getTime())) errors.expires_at = 'Enter a date and time.';
    else expires = at.toISOString();
  }
  const body = {
    name: f.name.trim(),
    group: f.group,
    expires_at: expires,
    ip_allowlist: f.ip_allowlist.split(/[\s,]+/).filter(Boolean),
    rpm_limit: whole('rpm_limit', f.rpm_limit),
    tpm_limit: whole('tpm_limit', f.tpm_limit),
    concurrency_limit: whole('concurrency_limit', f.concurrency_limit),
    total_micro_usd: usd('total_usd', f.total_usd),
    daily_micro_usd: usd('daily_usd', f.daily_usd),
    monthly_micro_usd: usd('monthly_usd', f.monthly_usd),
    budget:
      budgetLimit === null
        ? null
        : { limit_micro_usd: budgetLimit, period: f.budget_period, soft_threshold_percent: soft },
    tags: f.tags
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
    asset_access: f.asset_access,
    usage_access: f.usage_access,
    default_preset: f.default_preset || null,
    cache_ttl_seconds: whole('cache_ttl_seconds', f.cache_ttl_seconds),
  };
  return Object.keys(errors).length ? { errors } : { body };
}

/** API parameter names → the form field that shows their error. */
export const KEY_PARAMS: Partial<Record<string, KeyField>> = {
  name: 'name',
  group: 'group',
  expires_at: 'expires_at',
  ip_allowlist: 'ip_allowlist',
  rpm_limit: 'rpm_limit',
  tpm_limit: 'tpm_limit',
  concurrency_limit: 'concurrency_limit',
  total_micro_usd: 'total_usd',
  daily_micro_usd: 'daily_usd',
  monthly_micro_usd: 'monthly_usd',
  budget: 'budget_usd',
  tags: 'tags',
  asset_access: 'asset_access',
  default_preset: 'default_preset',
  cache_ttl_seconds: 'cache_ttl_seconds',
};

export const KEY_CODES: Partial<Record<string, KeyField>> = {
  group_not_allowed: 'group',
  preset_not_found: 'default_preset',
};
