import { badRequest } from '../errors.js';
import type { BudgetPeriod, BudgetSetting } from '../keys/budget.js';
import type { KeyUpdate } from '../keys/key-settings.js';
import { flag, integerFlag, listFlag, type Flags } from './flags.js';

/** A whole number, or `none` (null: the setting removed). Ranges are the key settings schema's to check. */
function clearableInteger(f: Flags, name: string): number | null | undefined {
  return flag(f, name) === 'none' ? null : integerFlag(f, name);
}

function clearable(f: Flags, name: string): string | null | undefined {
  const v = flag(f, name);
  return v === 'none' ? null : v;
}

/** A bare `--name` or `--name true` is true, `--name false` false. */
function booleanFlag(f: Flags, name: string): boolean | undefined {
  const v = f[name];
  if (v === undefined || v === true || v === 'true') return v === undefined ? undefined : true;
  if (v === 'false') return false;
  throw badRequest(`--${name} must be true or false`, name);
}

/**
 * `--budget-micro-usd N --budget-period day|week|month|total [--budget-soft-percent P]`, or
 * `--budget-micro-usd none`: the budget is set whole, as the console API sets it.
 */
export function budgetFlags(f: Flags): BudgetSetting | undefined {
  const limit = flag(f, 'budget-micro-usd');
  const period = flag(f, 'budget-period');
  const soft = flag(f, 'budget-soft-percent');
  if (limit === undefined || limit === 'none') {
    if (period !== undefined || soft !== undefined)
      throw badRequest(
        '--budget-period and --budget-soft-percent go with --budget-micro-usd N: the budget is set whole',
        'budget-micro-usd',
      );
    return limit === undefined ? undefined : null;
  }
  if (period === undefined) throw badRequest('--budget-period is required with --budget-micro-usd', 'budget-period');
  return {
    limit_micro_usd: integerFlag(f, 'budget-micro-usd')!,
    // Checked against the periods by the key settings schema, which names it.
    period: period as BudgetPeriod,
    soft_threshold_percent: integerFlag(f, 'budget-soft-percent') ?? null,
  };
}

export const KEY_UPDATE_FLAGS =
  '[--name N] [--group G] [--expires-at ISO|none] [--asset-access own|all|none] [--rpm N|none] [--tpm N|none] ' +
  '[--concurrency N|none] [--total-micro-usd N|none] [--daily-micro-usd N|none] [--monthly-micro-usd N|none] ' +
  '[--budget-micro-usd N|none --budget-period day|week|month|total [--budget-soft-percent P]] [--tags a,b] ' +
  '[--usage-access true|false] [--ip-allowlist CIDR,CIDR] [--preset SLUG|none] [--cache-ttl SECONDS|none]';

/**
 * The settings `key:update` changes: those whose flag is given (`none` removes a limit, cap,
 * budget, expiry or preset).
 */
export function keyUpdateFlags(f: Flags): KeyUpdate {
  return {
    name: flag(f, 'name'),
    group: flag(f, 'group'),
    expires_at: clearable(f, 'expires-at'),
    asset_access: flag(f, 'asset-access') as KeyUpdate['asset_access'],
    rpm_limit: clearableInteger(f, 'rpm'),
    tpm_limit: clearableInteger(f, 'tpm'),
    concurrency_limit: clearableInteger(f, 'concurrency'),
    total_micro_usd: clearableInteger(f, 'total-micro-usd'),
    daily_micro_usd: clearableInteger(f, 'daily-micro-usd'),
    monthly_micro_usd: clearableInteger(f, 'monthly-micro-usd'),
    budget: budgetFlags(f),
    tags: listFlag(f, 'tags'),
    usage_access: booleanFlag(f, 'usage-access'),
    ip_allowlist: listFlag(f, 'ip-allowlist'),
    default_preset: clearable(f, 'preset'),
    cache_ttl_seconds: clearableInteger(f, 'cache-ttl'),
  };
}
