import { createUser } from '../accounts/create-user.js';
import { creditBalance } from '../billing/credit.js';
import { migrate } from '../db/migrate.js';
import { findKeyById } from '../db/api-keys.js';
import { badRequest, notFound } from '../errors.js';
import { keyCreateSchema, keyUpdateSchema, keyView, type KeyCreate } from '../keys/key-settings.js';
import { createKey, setKeyStatus, updateKey } from '../keys/manage-keys.js';
import { mailKeyCreated } from '../keys/key-notice.js';
import { publishOwnerChange } from '../keys/key-cache.js';
import { setAllowedGroups, updateUserLimits } from '../db/user-limits.js';
import { selectableGroups } from '../keys/group-access.js';
import { parseOrThrow } from '../validation.js';
import type { CliContext } from './context.js';
import { flag, integerFlag, limitFlag, listFlag, requiredFlag, type Flags } from './flags.js';
import { budgetFlags, KEY_UPDATE_FLAGS, keyUpdateFlags } from './key-flags.js';
import { UUID_PATTERN as UUID } from '../ids.js';

export interface Command {
  usage: string;
  run(ctx: CliContext, flags: Flags): Promise<unknown>;
}

export const commands: Record<string, Command> = {
  migrate: {
    usage: 'migrate',
    run: async (ctx) => migrate(ctx.config.db.url),
  },
  'user:create': {
    usage: 'user:create --email E --password P [--balance-micro-usd N]',
    async run(ctx, f) {
      // Every flag is checked before anything is written, so a refused command leaves nothing behind.
      const balance = integerFlag(f, 'balance-micro-usd');
      if (balance !== undefined && balance < 0)
        throw badRequest('--balance-micro-usd must not be negative', 'balance-micro-usd');
      const user = await createUser(ctx.db, requiredFlag(f, 'email'), requiredFlag(f, 'password'));
      if (balance) await creditBalance(ctx.db, await ctx.balances(), user.id, balance, 'initial balance');
      return { id: user.id, email: user.email, balance_micro_usd: balance ?? 0 };
    },
  },
  'balance:credit': {
    usage: 'balance:credit --email E --micro-usd N',
    async run(ctx, f) {
      const user = await ctx.user(requiredFlag(f, 'email'));
      const amount = integerFlag(f, 'micro-usd');
      if (amount === undefined) throw badRequest('--micro-usd is required', 'micro-usd');
      await creditBalance(ctx.db, await ctx.balances(), user.id, amount, 'operator credit');
      return { email: user.email, credited_micro_usd: amount, ...(await balanceOf(ctx, user.id)) };
    },
  },
  'balance:show': {
    usage: 'balance:show --email E',
    async run(ctx, f) {
      const user = await ctx.user(requiredFlag(f, 'email'));
      return { email: user.email, ...(await balanceOf(ctx, user.id)) };
    },
  },
  'key:create': {
    usage:
      'key:create --email E [--kind standard|private] [--name N] [--group G] [--expires-at ISO] [--asset-access own|all|none] [--profile standard_v1] ' +
      '[--rpm N] [--tpm N] [--concurrency N] [--total-micro-usd N] [--daily-micro-usd N] [--monthly-micro-usd N] ' +
      '[--budget-micro-usd N --budget-period day|week|month|total [--budget-soft-percent P]] [--tags a,b] ' +
      '[--usage-access] [--ip-allowlist CIDR,CIDR] [--preset SLUG] [--cache-ttl SECONDS]',
    async run(ctx, f) {
      const user = await ctx.user(requiredFlag(f, 'email'));
      const settings: KeyCreate = parseOrThrow(keyCreateSchema, {
        name: flag(f, 'name'),
        group: flag(f, 'group'),
        expires_at: flag(f, 'expires-at'),
        asset_access: flag(f, 'asset-access'),
        compatibility_profile: flag(f, 'profile'),
        kind: flag(f, 'kind'),
        rpm_limit: integerFlag(f, 'rpm'),
        tpm_limit: integerFlag(f, 'tpm'),
        concurrency_limit: integerFlag(f, 'concurrency'),
        total_micro_usd: integerFlag(f, 'total-micro-usd'),
        daily_micro_usd: integerFlag(f, 'daily-micro-usd'),
        monthly_micro_usd: integerFlag(f, 'monthly-micro-usd'),
        budget: budgetFlags(f),
        tags: listFlag(f, 'tags'),
        usage_access: f['usage-access'] === true ? true : undefined,
        ip_allowlist: listFlag(f, 'ip-allowlist'),
        default_preset: flag(f, 'preset'),
        cache_ttl_seconds: integerFlag(f, 'cache-ttl'),
      });
      const { row, key } = await createKey(await ctx.keyAdmin(), user.id, settings);
      await mailKeyCreated(await ctx.jobs(), user, row, 'operator');
      return { ...keyView(row), key };
    },
  },
  'key:update': {
    usage: `key:update --key-id ID ${KEY_UPDATE_FLAGS}`,
    /** Changes the given settings only, as the console's PATCH does; takes effect on every process within a second. */
    async run(ctx, f) {
      const existing = await existingKey(ctx, requiredFlag(f, 'key-id'));
      if (existing.status === 'revoked') throw badRequest('a revoked key cannot be changed', 'key-id');
      const changes = parseOrThrow(keyUpdateSchema, keyUpdateFlags(f));
      const row = await updateKey(await ctx.keyAdmin(), existing.user_id, existing.id, changes);
      return row ? keyView(row) : undefined;
    },
  },
  'key:import': {
    usage:
      'key:import --email E --secret sk-…|ak-… --profile legacy_v1|standard_v1 [--name N] [--group G] [--asset-access all|own|none]',
    /**
     * A key migrated from the older system: its secret is kept (hashed) and its profile bound for good.
     * It predates asset scopes, and used every asset of its account: `all` unless the flag says otherwise.
     */
    async run(ctx, f) {
      const user = await ctx.user(requiredFlag(f, 'email'));
      const secret = requiredFlag(f, 'secret');
      const profile = requiredFlag(f, 'profile');
      if (profile !== 'legacy_v1' && profile !== 'standard_v1')
        throw badRequest('must be legacy_v1 or standard_v1', '--profile');
      const settings: KeyCreate = parseOrThrow(keyCreateSchema, {
        name: flag(f, 'name') ?? 'imported',
        group: flag(f, 'group'),
        asset_access: flag(f, 'asset-access') ?? 'all',
      });
      settings.compatibility_profile = profile;
      let created: Awaited<ReturnType<typeof createKey>>;
      try {
        created = await createKey(await ctx.keyAdmin(), user.id, settings, secret);
      } catch (err) {
        if (err instanceof Error && err.message.startsWith('an imported key'))
          throw badRequest(err.message, '--secret');
        if ((err as { code?: unknown }).code === '23505') throw badRequest('this key is already imported', '--secret');
        throw err;
      }
      // The secret is the one the caller already holds: it is not printed back.
      return keyView(created.row);
    },
  },
  'user:limits': {
    usage: 'user:limits --email E [--rpm N|none] [--tpm N|none] [--concurrency N|none]',
    async run(ctx, f) {
      const user = await ctx.user(requiredFlag(f, 'email'));
      const limits = {
        rpm_limit: limitFlag(f, 'rpm'),
        tpm_limit: limitFlag(f, 'tpm'),
        concurrency_limit: limitFlag(f, 'concurrency'),
      };
      const row = await updateUserLimits(
        ctx.db,
        user.id,
        Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)),
      );
      await publishOwnerChange(await ctx.redis(), ctx.keys.keyInvalidation, user.id);
      return { ...row, discount_percent: Number(row.discount_percent) };
    },
  },
  'user:groups': {
    usage:
      'user:groups --email E [--allow G,G|none]   (groups the user may give keys in the console, beside `default` and self-service ones)',
    async run(ctx, f) {
      const user = await ctx.user(requiredFlag(f, 'email'));
      const catalog = await ctx.catalog();
      let allowed = user.allowed_groups;
      if (flag(f, 'allow') !== undefined) {
        allowed = flag(f, 'allow') === 'none' ? [] : [...new Set(listFlag(f, 'allow'))];
        const unknown = catalog && allowed.find((g) => !catalog.groups.has(g));
        if (unknown) throw badRequest(`unknown group '${unknown}'`, 'allow');
        allowed = await setAllowedGroups(ctx.db, user.id, allowed);
      }
      return {
        email: user.email,
        allowed_groups: allowed,
        ...(catalog && { selectable_groups: selectableGroups(catalog, { allowed_groups: allowed }).map((g) => g.id) }),
      };
    },
  },
  'user:discount': {
    usage: 'user:discount --email E --percent P   (0-100, two decimals)',
    async run(ctx, f) {
      const user = await ctx.user(requiredFlag(f, 'email'));
      const percent = Number(requiredFlag(f, 'percent'));
      if (!(percent >= 0 && percent <= 100) || Math.round(percent * 100) !== percent * 100) {
        throw badRequest('--percent must be a number from 0 to 100 with at most two decimals', 'percent');
      }
      const row = await updateUserLimits(ctx.db, user.id, { discount_percent: percent });
      await publishOwnerChange(await ctx.redis(), ctx.keys.keyInvalidation, user.id);
      return { ...row, discount_percent: Number(row.discount_percent) };
    },
  },
  'key:disable': { usage: 'key:disable --key-id ID', run: (ctx, f) => changeStatus(ctx, f, 'disabled') },
  'key:enable': { usage: 'key:enable --key-id ID', run: (ctx, f) => changeStatus(ctx, f, 'active') },
  'key:revoke': { usage: 'key:revoke --key-id ID', run: (ctx, f) => changeStatus(ctx, f, 'revoked') },
};

async function balanceOf(ctx: CliContext, userId: string) {
  const b = await (await ctx.balances()).currentBalance(userId);
  return { balance_micro_usd: b?.balance ?? 0, settled_micro_usd: b?.settled ?? 0, pending_micro_usd: b?.pending ?? 0 };
}

async function existingKey(ctx: CliContext, keyId: string) {
  const existing = UUID.test(keyId) ? await findKeyById(ctx.db, keyId) : undefined;
  if (!existing) throw notFound(`no key with id ${keyId}`);
  return existing;
}

async function changeStatus(ctx: CliContext, f: Flags, status: 'disabled' | 'active' | 'revoked') {
  const keyId = requiredFlag(f, 'key-id');
  const existing = await existingKey(ctx, keyId);
  if (existing.status === 'revoked' && status !== 'revoked')
    throw badRequest('a revoked key cannot be changed', 'key-id');
  const row = await setKeyStatus(await ctx.keyAdmin(), existing.user_id, keyId, status);
  return row ? keyView(row) : undefined;
}
