import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb, type Db } from '../../shared/db/index.js';
import { cloneTemplate } from '../support/databases.js';
import { cliInProcess } from '../support/cli-in-process.js';
import { cliJson, runCli, writeCatalogFile, type CliResult } from '../support/processes.js';

// A few commands run as the real binary (exit code, one line of JSON on stdout); the rest call the
// function bin/cli.js runs, in this process, which is several times faster than a node start.
let env: Record<string, string>;
let db: Db;
let removeCatalog: () => Promise<void>;
const email = `cli-${randomBytes(3).toString('hex')}@example.test`;

beforeAll(async () => {
  const catalog = await writeCatalogFile('http://127.0.0.1:9');
  removeCatalog = catalog.remove;
  env = {
    DATABASE_URL: await cloneTemplate(inject('templateDb'), inject('runId')),
    REDIS_PREFIX: `gwt:cli-${randomBytes(4).toString('hex')}:`,
    CATALOG_FILE: catalog.file,
    LOG_LEVEL: 'silent',
  };
  db = createDb(env.DATABASE_URL!, 2);
});
afterAll(async () => {
  await db?.destroy();
  await removeCatalog?.();
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = await redis.keys(`${env.REDIS_PREFIX}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const cli = (...args: string[]): Promise<CliResult> => cliInProcess(args, env);

/** Exits non-zero, prints nothing on stdout and an `error:` line matching `message` on stderr. */
function expectFailure(result: CliResult, message: RegExp) {
  expect(result.code, result.stdout).not.toBe(0);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^error: /);
  expect(result.stderr).toMatch(message);
}

describe('operator CLI (the real binary)', () => {
  it('user:create prints one JSON object and exits 0', async () => {
    const out = cliJson(
      await runCli(['user:create', '--email', email, '--password', 'password123', '--balance-micro-usd', '5000'], env),
    );
    expect(out).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), email, balance_micro_usd: 5000 });
  });

  it('a negative --rpm exits non-zero naming the field', async () => {
    const result = await runCli(['key:create', '--email', email, '--rpm', '-5'], env);
    expect(result.code).toBe(1);
    expectFailure(result, /rpm/);
    expect(result.stderr).toMatch(/negative/);
  });

  it('an unknown command exits non-zero with the usage', async () => {
    const result = await runCli(['user:explode'], env);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/unknown command 'user:explode'/);
    expect(result.stderr).toMatch(/key:create --email/);
  });
});

describe('operator CLI commands', () => {
  it('balance:credit and balance:show', async () => {
    expect(cliJson(await cli('balance:credit', '--email', email, '--micro-usd', '250'))).toMatchObject({
      email,
      credited_micro_usd: 250,
      balance_micro_usd: 5_250,
    });
    expect(cliJson(await cli('balance:show', '--email', email))).toEqual({
      email,
      balance_micro_usd: 5_250,
      settled_micro_usd: 5_250,
      pending_micro_usd: 0,
    });
    const ledger = await db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount_micro_usd', 'balance_after_micro_usd'])
      .orderBy('id')
      .execute();
    expect(ledger).toEqual([
      { kind: 'credit', amount_micro_usd: 5_000, balance_after_micro_usd: 5_000 },
      { kind: 'credit', amount_micro_usd: 250, balance_after_micro_usd: 5_250 },
    ]);
  });

  it('key:create --kind private makes an ak- key; legacy_v1 only through key:import, which keeps the secret (hashed)', async () => {
    const privateKey = cliJson(await cli('key:create', '--email', email, '--kind', 'private'));
    expect(privateKey.key).toMatch(/^ak-[A-Za-z0-9]{48}$/);
    expectFailure(await cli('key:create', '--email', email, '--profile', 'legacy_v1'), /key:import/);
    const secret = `ak-legacy${'x'.repeat(30)}`;
    const imported = cliJson(
      await cli('key:import', '--email', email, '--secret', secret, '--profile', 'legacy_v1', '--name', 'migrated'),
    );
    expect(imported).toMatchObject({
      name: 'migrated',
      compatibility_profile: 'legacy_v1',
      prefix: secret.slice(0, 8),
      last4: secret.slice(-4),
      // It predates asset scopes and used every asset of its account: all, unless the flag says otherwise.
      asset_access: 'all',
    });
    expect(imported.key).toBeUndefined();
    const scoped = cliJson(
      await cli(
        'key:import',
        '--email',
        email,
        '--secret',
        `sk-scoped${'y'.repeat(30)}`,
        '--profile',
        'standard_v1',
        '--asset-access',
        'own',
      ),
    );
    expect(scoped).toMatchObject({ asset_access: 'own', compatibility_profile: 'standard_v1' });
    expectFailure(
      await cli(
        'key:import',
        '--email',
        email,
        '--secret',
        `sk-other1${'y'.repeat(30)}`,
        '--profile',
        'standard_v1',
        '--asset-access',
        'some',
      ),
      /asset_access/,
    );
    const row = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', imported.id as string)
      .executeTakeFirstOrThrow();
    expect(row.key_hash.equals(createHash('sha256').update(secret).digest())).toBe(true);
    expectFailure(
      await cli('key:import', '--email', email, '--secret', secret, '--profile', 'legacy_v1'),
      /already imported/,
    );
    expectFailure(await cli('key:import', '--email', email, '--secret', 'nope', '--profile', 'legacy_v1'), /--secret/);
    expectFailure(
      await cli('key:import', '--email', email, '--secret', secret.replace('legacy', 'other1'), '--profile', 'v2'),
      /--profile/,
    );
  });

  it('key:create with every flag, then key:disable and key:revoke', async () => {
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const created = cliJson(
      await cli(
        'key:create',
        '--email',
        email,
        '--name',
        'ci key',
        '--group',
        'basic',
        '--expires-at',
        expires,
        '--asset-access',
        'none',
        '--profile',
        'standard_v1',
        '--rpm',
        '60',
        '--tpm',
        '100000',
        '--concurrency',
        '4',
        '--total-micro-usd',
        '9000000',
        '--daily-micro-usd',
        '100000',
        '--monthly-micro-usd',
        '2000000',
        '--tags',
        'team-a, proj-b',
        '--usage-access',
        '--ip-allowlist',
        '10.0.0.0/8,192.168.1.7',
      ),
    );
    expect(created).toMatchObject({
      name: 'ci key',
      group: 'basic',
      expires_at: expires,
      asset_access: 'none',
      compatibility_profile: 'standard_v1',
      rpm_limit: 60,
      tpm_limit: 100_000,
      concurrency_limit: 4,
      total_micro_usd: 9_000_000,
      daily_micro_usd: 100_000,
      monthly_micro_usd: 2_000_000,
      tags: ['team-a', 'proj-b'],
      usage_access: true,
      ip_allowlist: ['10.0.0.0/8', '192.168.1.7/32'],
      status: 'active',
      key: expect.stringMatching(/^sk-[A-Za-z0-9]{48}$/),
    });
    const secret = created.key as string;
    expect(created).toMatchObject({ prefix: secret.slice(0, 8), last4: secret.slice(-4) });
    const row = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', created.id as string)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      group_id: 'basic',
      rpm_limit: 60,
      usage_access: true,
      compatibility_profile: 'standard_v1',
    });
    expect(row.key_hash.toString('hex')).not.toContain(Buffer.from(secret).toString('hex')); // only the hash is stored

    expect(cliJson(await cli('key:disable', '--key-id', created.id as string))).toMatchObject({
      id: created.id,
      status: 'disabled',
    });
    expect(cliJson(await cli('key:revoke', '--key-id', created.id as string))).toMatchObject({
      id: created.id,
      status: 'revoked',
    });
    expectFailure(await cli('key:enable', '--key-id', created.id as string), /revoked key cannot be changed/);
  });

  it.each([
    [['key:create', '--email', email, '--rpm', '1.5'], /--rpm must be a whole number/],
    [['key:create', '--email', email, '--concurrency', '-1'], /concurrency/],
    [['key:create', '--email', email, '--group', 'no-such-group'], /unknown group 'no-such-group'/],
    [['key:create', '--email', email, '--asset-access', 'some'], /asset_access/],
    [['key:create', '--email', email, '--expires-at', 'tomorrow'], /expires_at/],
    [['key:create', '--email', email, '--ip-allowlist', '10.0.0.0/33'], /ip_allowlist/],
    [['key:create', '--email', 'nobody@example.test'], /no user with e-mail nobody@example.test/],
    [['key:disable', '--key-id', 'not-a-uuid'], /no key with id not-a-uuid/],
    [['key:revoke'], /--key-id is required/],
    [['user:create', '--email', 'x@example.test'], /--password is required/],
    [['user:create', '--email', 'not-an-email', '--password', 'password123'], /e-mail/],
    [['user:create', '--email', email, '--password', 'password123'], /exists/],
    [['balance:credit', '--email', email, '--micro-usd', '0'], /positive whole number/],
    [['balance:credit', '--email', email, '--micro-usd', '2.5'], /--micro-usd must be a whole number/],
    [['balance:credit', '--email', email], /--micro-usd is required/],
    [['balance:show', '--email', 'nobody@example.test'], /no user/],
    [['balance:show', 'email'], /unexpected argument 'email'/],
  ])('%j fails with a clear message', async (args, message) => {
    expectFailure(await cli(...args), message);
  });

  it('a failed command leaves nothing behind', async () => {
    const other = `cli-neg-${randomBytes(3).toString('hex')}@example.test`;
    expectFailure(
      await cli('user:create', '--email', other, '--password', 'password123', '--balance-micro-usd', '-5'),
      /micro/,
    );
    // The flags were wrong, so the account must not exist: retrying with a fixed flag has to work.
    expect(await db.selectFrom('users').select('id').where('email', '=', other).execute()).toEqual([]);
  });
});
