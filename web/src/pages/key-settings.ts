import type { AssetAccess, Key } from '../api/models';
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
  tags: string;
  asset_access: AssetAccess;
  usage_access: boolean;
  default_preset: string;
  cache_ttl_seconds: string;
  kind: 'standard' | 'private';
}

export type KeyField = Exclude<keyof KeyFormState, 'kind' | 'usage_access' | 'asset_access'> | 'asset_access';

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
  tags: 'tags',
  asset_access: 'asset_access',
  default_preset: 'default_preset',
  cache_ttl_seconds: 'cache_ttl_seconds',
};

export const KEY_CODES: Partial<Record<string, KeyField>> = {
  group_not_allowed: 'group',
  preset_not_found: 'default_preset',
};
