import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { migrate } from '../../shared/db/migrate.js';
import { provideTestServices } from './test-services.js';

/**
 * Once per run: compiles dist/ (tests that spawn gateway processes run the built code) and migrates
 * a template database that every test file clones. Everything is dropped at the end.
 */
export default async function setup({ provide }: { provide: (key: 'templateDb' | 'runId', value: string) => void }) {
  const runId = `${process.pid}_${Date.now().toString(36)}`;
  const template = `gw_test_${runId}_tmpl`;
  const services = await provideTestServices();
  // Read after the services are known: the admin URL may be an embedded Postgres of this run.
  const { ADMIN_URL, databaseUrl } = await import('./databases.js');
  // `npm test` has just built dist/ (its pretest step is `npm run build`); `npx vitest run <file>` has not.
  if (process.env.npm_lifecycle_event !== 'test') buildDist();
  await migrate(databaseUrl(template));
  provide('templateDb', template);
  provide('runId', runId);
  return async () => {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
      `gw_test_${runId}_%`,
    ]);
    for (const { datname } of rows)
      await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
    await admin.end();
    await services.stop();
  };
}

/**
 * tsc emits even when it finds type errors (exit 2): the tests run the code as written, and the
 * type check is its own step (`npm run typecheck`, in CI before the tests). Anything else stops the run.
 */
function buildDist(): void {
  try {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  } catch (err) {
    if ((err as { status?: number }).status !== 2) throw err;
    process.stderr.write('npm test: the build has type errors (above); the tests run the emitted code\n');
  }
  // The Lua scripts are read beside their compiled modules; tsc does not copy them.
  execFileSync(process.execPath, ['scripts/copy-lua.mjs', 'dist'], { stdio: 'inherit' });
}

declare module 'vitest' {
  export interface ProvidedContext {
    templateDb: string;
    runId: string;
  }
}
