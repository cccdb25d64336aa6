// Helpers for the limits, quota and estimate tests: a domain clock that can stand still, raw
// calls to the gateway's JSON routes, the rate-limit headers, and a Redis server of a test's own.
import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import type { Clock } from '../../shared/clock.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import type { TestGateway } from './gateway.js';
import { waitUntil, type RawResponse } from './http.js';

/**
 * Domain time that runs with real time plus an offset, or stands still while frozen. Frozen time
 * makes GCRA arithmetic exact (no refill while a burst is in flight).
 */
export interface ControlClock extends Clock {
  advance(ms: number): void;
  /** Jumps to an absolute time (keeps running, or stays frozen there). */
  set(ms: number): void;
  freeze(): void;
  unfreeze(): void;
}

export function controlClock(): ControlClock {
  let offset = 0;
  let frozenAt: number | undefined;
  const now = () => frozenAt ?? Date.now() + offset;
  return {
    now,
    advance(ms) {
      if (frozenAt !== undefined) frozenAt += ms;
      else offset += ms;
    },
    set(ms) {
      if (frozenAt !== undefined) frozenAt = ms;
      else offset = ms - Date.now();
    },
    freeze() {
      frozenAt = now();
    },
    unfreeze() {
      if (frozenAt === undefined) return;
      offset = frozenAt - Date.now();
      frozenAt = undefined;
    },
  };
}

// Assertions read arbitrary JSON shapes.
export type Json = any;

export interface JsonReply {
  status: number;
  headers: Headers;
  json: Json;
}

/** POST a JSON body to a gateway route with a bearer key. */
export async function postJson(
  gw: TestGateway | string,
  path: string,
  key: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<JsonReply> {
  const base = typeof gw === 'string' ? gw : gw.url;
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

export function estimate(gw: TestGateway, key: string, endpoint: string, payload: unknown): Promise<JsonReply> {
  return postJson(gw, '/v1/estimates', key, { endpoint, payload });
}

export async function keyUsage(
  gw: TestGateway,
  key: string | undefined,
  headers: Record<string, string> = {},
): Promise<JsonReply> {
  const res = await fetch(`${gw.url}/v1/key/usage`, {
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

export interface RateHeaders {
  limit: number;
  remaining: number;
  reset: number;
}

/** The X-RateLimit trio of one dimension, or undefined when none of its three headers is present. */
export function rateTrio(headers: Headers, dim: 'Requests' | 'Tokens'): RateHeaders | undefined {
  const values = ['Limit', 'Remaining', 'Reset'].map((p) =>
    headers.get(`x-ratelimit-${p.toLowerCase()}-${dim.toLowerCase()}`),
  );
  if (values.every((v) => v === null)) return undefined;
  if (values.some((v) => v === null || !/^\d+$/.test(v)))
    throw new Error(`incomplete or malformed X-RateLimit-*-${dim}: ${values.join(', ')}`);
  const [limit, remaining, reset] = values.map(Number) as [number, number, number];
  return { limit, remaining, reset };
}

/** Every x-ratelimit-* header of a response. */
export function rateHeaderNames(headers: Headers): string[] {
  return [...headers.keys()].filter((k) => k.startsWith('x-ratelimit-')).sort();
}

export function retryAfter(res: { headers: Headers }): number {
  const value = res.headers.get('retry-after');
  if (value === null || !/^\d+$/.test(value)) throw new Error(`Retry-After is not whole seconds: ${value}`);
  return Number(value);
}

export function errorOf(res: RawResponse | JsonReply): {
  code: string;
  message: string;
  param: string | null;
  type: string;
} {
  const body = 'text' in res ? JSON.parse(res.text) : res.json;
  return body.error;
}

/**
 * Waits until the gateway's key cache holds a version of the key that passes `check`: a change
 * published on Redis (key or owner) has then reached this process.
 */
export async function keySeen(
  gw: TestGateway,
  secret: string,
  check: (key: ApiKeyContext) => boolean,
  timeoutMs = 2_000,
): Promise<void> {
  await waitUntil(
    async () => {
      const key = await gw.services.keyCache.lookup(secret);
      return key !== null && check(key);
    },
    timeoutMs,
    10,
  );
}

/**
 * Starts `call` and resolves once it has reached the simulator (so it was admitted and holds its
 * lease and reservation); the returned promise is the call's own result.
 */
export async function whenUpstreamReached<T>(gw: TestGateway, call: () => Promise<T>): Promise<{ result: Promise<T> }> {
  const before = gw.sim.stats().requests;
  const result = call();
  result.catch(() => {});
  await waitUntil(() => gw.sim.stats().requests > before, 2_000, 5);
  return { result };
}

export interface RedisServer {
  port: number;
  url: string;
  /** SIGKILL, then wait for the exit. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: the server keeps its connections open but answers nothing (a silent network). */
  pause(): void;
  resume(): void;
}

/** `redis-server` on a port of the test's choice, without persistence; resolves once it answers PING. */
/**
 * A private redis-server; with `aofDir`, persistent with AOF `everysec` in that folder (else nothing
 * kept); `extra` arguments are passed on (a replica's `--replicaof`).
 */
export async function startRedisServer(port: number, aofDir?: string, extra: string[] = []): Promise<RedisServer> {
  const persistence = aofDir
    ? ['--appendonly', 'yes', '--appendfsync', 'everysec', '--dir', aofDir]
    : ['--appendonly', 'no'];
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--daemonize', 'no', ...extra],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 5_000;
  while (!(await ping(port))) {
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }
      await exited;
    },
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
  };
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
