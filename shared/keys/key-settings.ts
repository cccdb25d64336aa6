import { z } from 'zod';
import type { ApiKeyRow, ApiKeyUpdate } from '../db/schema.js';
import { normalizeCidr } from './api-key.js';
import { MAX_CACHE_TTL_SECONDS } from '../response-cache/ttl.js';
import { budgetColumns, budgetSchema, budgetView, type BudgetSetting } from './budget.js';

const limit = z
  .number()
  .int('must be a whole number')
  .min(0, 'must not be negative')
  .max(1_000_000_000, 'is too large')
  .nullable();
// 10^15 micro-USD is a billion dollars: anything above is a mistake, and it stays far below 2^53.
const cap = z
  .number()
  .int('must be a whole number')
  .min(0, 'must not be negative')
  .max(1e15, 'is too large')
  .nullable();
const tag = z
  .string()
  .min(1)
  .refine((t) => Buffer.byteLength(t) <= 64, 'a tag is at most 64 bytes')
  .refine((t) => !t.includes(','), 'a tag cannot contain a comma');
const cidr = z.string().transform((value, ctx) => {
  const normalized = normalizeCidr(value);
  if (!normalized) ctx.addIssue({ code: 'custom', message: `'${value}' is not an IP address or CIDR range` });
  return normalized ?? value;
});

/** Every settable field of a key (the spec's key table), shared by the console API and the CLI. */
const settings = {
  name: z.string().max(100),
  expires_at: z.iso.datetime({ offset: true }).nullable(),
  group: z.string().min(1).max(128),
  ip_allowlist: z.array(cidr).max(100),
  asset_access: z.enum(['own', 'all', 'none']),
  rpm_limit: limit,
  tpm_limit: limit,
  concurrency_limit: limit,
  total_micro_usd: cap,
  daily_micro_usd: cap,
  monthly_micro_usd: cap,
  /** A hard spending limit over a period, with an optional soft threshold (replaced whole; null removes it). */
  budget: budgetSchema,
  tags: z.array(tag).max(10),
  usage_access: z.boolean(),
  /** A preset slug of the key's account: the model of requests that name none (`model` omitted). */
  default_preset: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be a preset slug')
    .nullable(),
  /** Seconds the key's answers stay in the response cache (0 = off; null = not set: a preset or the header may set it). */
  cache_ttl_seconds: z
    .number()
    .int('must be a whole number of seconds')
    .min(0, 'must not be negative')
    .max(MAX_CACHE_TTL_SECONDS, 'is at most 30 days (2592000 seconds)')
    .nullable(),
};

export const keyCreateSchema = z.strictObject({
  ...Object.fromEntries(Object.entries(settings).map(([k, s]) => [k, s.optional()])),
  // legacy_v1 belongs to keys migrated from the older system: only `key:import` creates those.
  compatibility_profile: z
    .enum(['standard_v1'], {
      error: 'standard_v1 (legacy_v1 is for keys imported from the older system: `key:import`)',
    })
    .optional(),
  /** `private`: an `ak-` key of the private protocol (`/server`), else a standard `sk-` key. */
  kind: z.enum(['standard', 'private']).optional(),
}) as z.ZodType<KeyCreate>;

/** Updates leave omitted fields unchanged; the profile is immutable and handled by the caller. */
export const keyUpdateSchema = z.strictObject({
  ...Object.fromEntries(Object.entries(settings).map(([k, s]) => [k, s.optional()])),
  compatibility_profile: z.unknown().optional(),
  /** Disable or enable again; revocation is final and has its own route. */
  status: z.enum(['active', 'disabled']).optional(),
}) as z.ZodType<KeyUpdate>;

export interface KeyCreate {
  name?: string;
  expires_at?: string | null;
  group?: string;
  ip_allowlist?: string[];
  asset_access?: 'own' | 'all' | 'none';
  compatibility_profile?: 'standard_v1' | 'legacy_v1';
  kind?: 'standard' | 'private';
  rpm_limit?: number | null;
  tpm_limit?: number | null;
  concurrency_limit?: number | null;
  total_micro_usd?: number | null;
  daily_micro_usd?: number | null;
  monthly_micro_usd?: number | null;
  budget?: BudgetSetting;
  tags?: string[];
  usage_access?: boolean;
  default_preset?: string | null;
  cache_ttl_seconds?: number | null;
}

export type KeyUpdate = Omit<KeyCreate, 'compatibility_profile'> & {
  compatibility_profile?: unknown;
  status?: 'active' | 'disabled';
};

/** Maps API field names to columns, leaving out what was not given. */
export function keyColumns(s: KeyUpdate): ApiKeyUpdate {
  const row: ApiKeyUpdate = {};
  if (s.name !== undefined) row.name = s.name;
  if (s.expires_at !== undefined) row.expires_at = s.expires_at === null ? null : new Date(s.expires_at);
  if (s.group !== undefined) row.group_id = s.group;
  if (s.ip_allowlist !== undefined) row.ip_allowlist = [...new Set(s.ip_allowlist)];
  if (s.asset_access !== undefined) row.asset_access = s.asset_access;
  for (const f of [
    'rpm_limit',
    'tpm_limit',
    'concurrency_limit',
    'total_micro_usd',
    'daily_micro_usd',
    'monthly_micro_usd',
  ] as const) {
    if (s[f] !== undefined) row[f] = s[f];
  }
  if (s.budget !== undefined) Object.assign(row, budgetColumns(s.budget));
  if (s.tags !== undefined) row.tags = [...new Set(s.tags)];
  if (s.usage_access !== undefined) row.usage_access = s.usage_access;
  if (s.default_preset !== undefined) row.default_preset = s.default_preset;
  if (s.cache_ttl_seconds !== undefined) row.cache_ttl_seconds = s.cache_ttl_seconds;
  if (s.status !== undefined) row.status = s.status;
  return row;
}

/** A key as the console and the CLI show it; the full secret is never part of it. */
export function keyView(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    status: row.status,
    expires_at: row.expires_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    group: row.group_id,
    ip_allowlist: row.ip_allowlist,
    asset_access: row.asset_access,
    compatibility_profile: row.compatibility_profile,
    rpm_limit: row.rpm_limit,
    tpm_limit: row.tpm_limit,
    concurrency_limit: row.concurrency_limit,
    total_micro_usd: row.total_micro_usd,
    daily_micro_usd: row.daily_micro_usd,
    monthly_micro_usd: row.monthly_micro_usd,
    budget: budgetView(row),
    tags: row.tags,
    usage_access: row.usage_access,
    default_preset: row.default_preset,
    cache_ttl_seconds: row.cache_ttl_seconds ?? null,
  };
}
