// Gateway processes started the way an operator starts them: `node dist/bin/*.js` (built by the
// global setup), configured only through the environment.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { freePort } from '../../shared/lifecycle/local/free-port.js';
import { testCatalog } from './catalog.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// A port nobody listens on right now (the API cannot report the one it picked for PORT=0).
export { freePort };

/** Writes testCatalog(simUrl) (or another catalog) as YAML into a fresh temp dir; `remove` deletes the dir. */
export async function writeCatalogFile(
  simUrl: string,
  build: (simUrl: string) => unknown = testCatalog,
): Promise<{ file: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gw-catalog-'));
  const file = path.join(dir, 'catalog.yaml');
  await writeFile(file, YAML.stringify(build(simUrl)));
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Only what the processes need: no test-runner variables leak into them. */
function processEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    ['PATH', 'HOME', 'REDIS_URL'].flatMap((k) => (process.env[k] ? [[k, process.env[k]]] : [])),
  );
  // Route resting is off unless a test turns it on: upstream faults it provokes must not rest routes for the next test.
  return { ...inherited, LOG_LEVEL: 'silent', ROUTING_BREAKER_THRESHOLD: '0', ...env };
}

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  /** Sends the signal and waits for the process to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `node dist/bin/api.js` on a free port and waits until /healthz answers. */
export async function spawnApi(env: Record<string, string>): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/bin/api.js')], {
    cwd: ROOT,
    env: processEnv({ HOST: '127.0.0.1', PORT: String(port), ...env }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  // A generous bound: it waits on the process saying it listens, and two busy cores can take this long.
  const deadline = Date.now() + 45_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`api.js exited with ${child.exitCode}: ${stderr}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`api.js did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    child,
    async stop(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/bin/cli.js <args>` to the end. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/bin/cli.js'), ...args], {
      cwd: ROOT,
      env: processEnv(env),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The one JSON object a successful command prints; throws with its stderr otherwise. */
export function cliJson(result: CliResult): Record<string, unknown> {
  if (result.code !== 0) throw new Error(`cli exited ${result.code}: ${result.stderr}`);
  const lines = result.stdout.trim().split('\n');
  if (lines.length !== 1) throw new Error(`expected one line of JSON, got: ${result.stdout}`);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

export interface ApisBeside {
  apis: ApiProcess[];
  /** The environment they run with (the test gateway's database and Redis prefix, the catalog). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** `count` API processes beside a test gateway: its database, Redis prefix and simulator (a catalog file of its own). */
export async function startApisBeside(
  gw: { env: Record<string, string>; sim: { url: string } },
  count: number,
  extraEnv: Record<string, string> = {},
): Promise<ApisBeside> {
  const catalog = await writeCatalogFile(gw.sim.url);
  const env = {
    DATABASE_URL: gw.env.DATABASE_URL!,
    REDIS_PREFIX: gw.env.REDIS_PREFIX!,
    CATALOG_FILE: catalog.file,
    ...extraEnv,
  };
  const apis = await Promise.all(Array.from({ length: count }, () => spawnApi(env)));
  return {
    apis,
    env,
    async stop() {
      await Promise.all(apis.map((api) => api.stop()));
      await catalog.remove();
    },
  };
}
