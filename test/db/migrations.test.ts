import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { migrate } from '../../shared/db/migrate.js';
import { projectPath } from '../../shared/paths.js';
import { ADMIN_URL, databaseUrl } from '../support/databases.js';
import { cliJson, runCli } from '../support/processes.js';

const created: string[] = [];

/** A database name that does not exist yet (the global teardown drops anything left under the run id). */
function freshDatabase(): string {
  const name = `gw_test_${inject('runId')}_mig_${randomBytes(3).toString('hex')}`;
  created.push(name);
  return name;
}

async function withClient<T>(url: string, run: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

const migrationFiles = async () => (await readdir(projectPath('migrations'))).filter((f) => f.endsWith('.sql')).sort();

const exists = (name: string) =>
  withClient(
    ADMIN_URL,
    async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1,
  );

/** What migrations produced: applied names, and every column, constraint, index and trigger. */
function schemaOf(name: string) {
  return withClient(databaseUrl(name), async (c) => {
    const q = async (text: string) => (await c.query(text)).rows.map((r) => Object.values(r).join(' '));
    return {
      migrations: await q('SELECT name FROM schema_migrations ORDER BY name'),
      columns:
        await q(`SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
                        WHERE table_schema = 'public' ORDER BY table_name, column_name`),
      constraints: await q(`SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint
                            WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2`),
      indexes: await q(
        `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2`,
      ),
      triggers: await q(`SELECT tgrelid::regclass::text, tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1, 2`),
    };
  });
}

afterAll(async () => {
  await withClient(ADMIN_URL, async (c) => {
    for (const name of created) await c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  });
});

describe('migrations', () => {
  it('create a missing database, apply every file once, and change nothing the second time', async () => {
    const name = freshDatabase();
    expect(await exists(name)).toBe(false);
    const first = await migrate(databaseUrl(name));
    expect(await exists(name)).toBe(true);
    expect(first).toEqual({ applied: await migrationFiles(), alreadyApplied: 0 });
    const schema = await schemaOf(name);
    expect(schema.migrations).toEqual(first.applied);
    expect(schema.columns.length).toBeGreaterThan(20);

    const second = await migrate(databaseUrl(name));
    expect(second).toEqual({ applied: [], alreadyApplied: first.applied.length });
    expect(await schemaOf(name)).toEqual(schema);
    // The template every other test file clones was migrated the same way.
    expect(await schemaOf(inject('templateDb'))).toEqual(schema);
  });

  it('two concurrent runs on a fresh database both succeed and apply each file once', async () => {
    const name = freshDatabase();
    const url = databaseUrl(name);
    const [a, b] = await Promise.all([migrate(url), migrate(url)]);
    // The advisory lock queues the second run: together they applied every file exactly once.
    expect([...a.applied, ...b.applied].sort()).toEqual(await migrationFiles());
    expect(await schemaOf(name)).toEqual(await schemaOf(inject('templateDb')));
  });

  it('run from the CLI against a database that does not exist: creates it and prints JSON', async () => {
    const name = freshDatabase();
    const out = cliJson(await runCli(['migrate'], { DATABASE_URL: databaseUrl(name) }));
    expect(out).toEqual({ applied: await migrationFiles(), alreadyApplied: 0 });
    expect(await schemaOf(name)).toEqual(await schemaOf(inject('templateDb')));
  });
});
