import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { KeyWithOwner } from '../db/api-keys.js';
import type { AssetAccess, CompatibilityProfile, KeyStatus } from '../db/schema.js';
import { budgetOfRow, type KeyBudget } from './budget.js';

/** What the gateway needs of a key on every call, prepared once when the key is cached. */
export interface ApiKeyContext {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  readonly status: KeyStatus;
  /** Epoch ms, or null for no expiry. */
  readonly expiresAt: number | null;
  readonly groupId: string;
  /** null = every address allowed. */
  readonly ipAllowlist: BlockList | null;
  readonly assetAccess: AssetAccess;
  readonly profile: CompatibilityProfile;
  readonly limits: { readonly rpm: number | null; readonly tpm: number | null; readonly concurrency: number | null };
  readonly quota: { readonly total: number | null; readonly daily: number | null; readonly monthly: number | null };
  readonly budget: KeyBudget | null;
  readonly tags: readonly string[];
  readonly usageAccess: boolean;
  /** A preset slug: the model of requests that name none. */
  readonly defaultPreset: string | null;
  /** Seconds the key's answers stay in the response cache; null = not set on the key (off unless a preset or the header sets it). */
  readonly cacheTtlSeconds: number | null;
  /** The account layer: operator-set limits and discount of the key's owner. */
  readonly owner: {
    readonly limits: { readonly rpm: number | null; readonly tpm: number | null; readonly concurrency: number | null };
    readonly discountPercent: number;
    /** Keep prompts and completions for dataset exports (account settings). */
    readonly logContent: boolean;
  };
}

export function toKeyContext(row: KeyWithOwner): ApiKeyContext {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    status: row.status,
    expiresAt: row.expires_at ? row.expires_at.getTime() : null,
    groupId: row.group_id,
    ipAllowlist: row.ip_allowlist.length > 0 ? buildBlockList(row.ip_allowlist) : null,
    assetAccess: row.asset_access,
    profile: row.compatibility_profile,
    limits: { rpm: row.rpm_limit, tpm: row.tpm_limit, concurrency: row.concurrency_limit },
    quota: { total: row.total_micro_usd, daily: row.daily_micro_usd, monthly: row.monthly_micro_usd },
    budget: budgetOfRow(row),
    tags: row.tags,
    usageAccess: row.usage_access,
    defaultPreset: row.default_preset ?? null,
    cacheTtlSeconds: row.cache_ttl_seconds ?? null,
    owner: {
      limits: { rpm: row.owner_rpm_limit, tpm: row.owner_tpm_limit, concurrency: row.owner_concurrency_limit },
      discountPercent: Number(row.owner_discount_percent),
      logContent: row.owner_log_content === true,
    },
  };
}

export function buildBlockList(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', bits] = cidr.split('/');
    const family = isIPv6(address) ? 'ipv6' : 'ipv4';
    list.addSubnet(address, Number(bits ?? (family === 'ipv6' ? 128 : 32)), family);
  }
  return list;
}

/** Matches IPv4-mapped IPv6 addresses (::ffff:1.2.3.4) against IPv4 rules, as Node reports them. */
export function ipAllowed(list: BlockList, ip: string): boolean {
  const mapped = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  if (isIPv4(mapped)) return list.check(mapped, 'ipv4');
  if (isIPv6(ip)) return list.check(ip, 'ipv6');
  return false;
}

/** Validates one CIDR (or a bare address) and returns it in canonical form, or undefined. */
export function normalizeCidr(value: string): string | undefined {
  const [address = '', bits, extra] = value.trim().split('/');
  if (extra !== undefined) return undefined;
  const v4 = isIPv4(address);
  if (!v4 && !isIPv6(address)) return undefined;
  const max = v4 ? 32 : 128;
  const n = bits === undefined ? max : Number(bits);
  if (!Number.isInteger(n) || n < 0 || n > max || (bits !== undefined && !/^\d+$/.test(bits))) return undefined;
  return `${address}/${n}`;
}
