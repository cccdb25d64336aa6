// `npm start` without CATALOG_FILE is the demo, whose sign-in and key are printed for anyone to
// read: unless HOST says otherwise it listens on 127.0.0.1 only, never on the machine's network
// addresses.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { cloneTemplate } from '../support/databases.js';
import { freePort, ROOT } from '../support/processes.js';

type Demo = Awaited<ReturnType<typeof startDemo>>;
let unset: Demo;
let set: Demo;
beforeAll(async () => {
  [unset, set] = await Promise.all([startDemo({}), startDemo({ HOST: '0.0.0.0' })]);
});
afterAll(async () => {
  await Promise.all([unset?.stop(), set?.stop()]);
});

// An address of this machine other than 127.0.0.1: a network interface's, else another loopback
// address (a socket bound to 127.0.0.1 does not answer 127.0.0.2 either).
const elsewhere =
  Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address ?? '127.0.0.2';

async function startDemo(env: Record<string, string>) {
  const port = await freePort();
  const inherited = Object.fromEntries(
    ['PATH', 'HOME', 'REDIS_URL'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])),
  );
  const databaseUrl = await cloneTemplate(inject('templateDb'), inject('runId'));
  const dataDir = await mkdtemp(path.join(tmpdir(), 'gw-demo-bind-'));
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/bin/start.js')], {
    cwd: ROOT,
    env: {
      ...inherited,
      LOG_LEVEL: 'silent',
      DATABASE_URL: databaseUrl,
      REDIS_PREFIX: `gwt:${randomBytes(4).toString('hex')}:`,
      DATA_DIR: dataDir,
      PORT: String(port),
      CONSOLE_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 30_000;
  while (!out.includes('Demo API key:')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`start.js did not become ready: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.setTimeout(2_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('npm start in demo mode', () => {
  it('listens on 127.0.0.1 only when HOST is unset, and says so', async () => {
    expect((await fetch(`http://127.0.0.1:${unset.port}/healthz`)).status).toBe(200);
    expect(await accepts(elsewhere, unset.port)).toBe(false);
    expect(unset.output()).toContain('set HOST=0.0.0.0');
  });

  it('listens where HOST says when it is set', async () => {
    expect(await accepts(elsewhere, set.port)).toBe(true);
    expect(set.output()).not.toContain('set HOST=0.0.0.0');
  });
});
