import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DEFAULT_POSTGRES_URL } from './default-postgres.js';

const BASE = process.env.TEST_DATABASE_URL ?? DEFAULT_POSTGRES_URL;
export const ADMIN_URL = BASE;

export function databaseUrl(name: string): string {
  const url = new URL(BASE);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A fresh database for one test file, cloned from the migrated template (fast: no migrations). */
export async function cloneTemplate(template: string, runId: string): Promise<string> {
  const name = `gw_test_${runId}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(template)}`);
        break;
      } catch (err) {
        // Two files cloning at the same instant: the template is briefly "in use".
        if (attempt > 20 || !String((err as Error).message).includes('being accessed')) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await admin.end();
  }
  return databaseUrl(name);
}
