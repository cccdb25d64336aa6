import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';

// `npm test` itself on a machine that lacks what it needs: it stops before any test, in one line.
let scratch: string | undefined;
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('npm test on a machine without redis-server', () => {
  it('stops before any test with one line naming the package to install', async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'gw-test-cmd-'));
    const onlyNode = path.join(scratch, 'bin');
    await mkdir(onlyNode);
    await symlink(process.execPath, path.join(onlyNode, 'node'));
    const vitest = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
    const run = spawnSync(process.execPath, [vitest, 'run', 'test/gateway/pricing.unit.test.ts'], {
      cwd: ROOT,
      env: { PATH: onlyNode, HOME: process.env.HOME ?? '/root', NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^npm test: redis-server was not found on PATH: .*apt-get install redis-server/);
    expect(run.stdout).not.toMatch(/Test Files/);
  });
});
