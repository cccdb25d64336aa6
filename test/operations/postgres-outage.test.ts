// Postgres cut for 20 s under load (as the issue measured it), between real gateway processes (an API and a usage-drain
// worker, `node dist/bin/*.js`) and the database, by a TCP relay that resets every connection and
// refuses new ones. Idle pooled clients, clients in the middle of a query and the drain's COPY client
// all lose their connection. Nothing may end a process; keys the API has cached keep being served
// (admission runs in Redis, usage waits there) long past their cache TTL, with their prompt
// template; a key never seen answers a fast 503 in the caller's format, never a 500; /readyz says
// not ready. After Postgres is back every answered call has exactly one usage record and one charge,
// and the video tasks that were polling upstream through the outage end, submitted and charged once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTemplateParts } from '../../shared/db/prompt-templates.js';
import { redisKeys } from '../../shared/redis/keys.js';
import { usageDrained } from '../../shared/usage/drain.js';
import { chatRequest, postChat, sleep, waitUntil } from '../support/http.js';
import { postJson } from '../support/limits.js';
import { expectConsistentLedger, usageRecords } from '../support/money.js';
import { spawnApi, type ApiProcess } from '../support/processes.js';
import {
  spawnWorker,
  startTaskGateway,
  VIDEO_PER_SECOND,
  videoBody,
  waitSettled,
  workerEnv,
  writeTaskCatalogFile,
  type TaskGateway,
  type WorkerProcess,
} from '../support/task-gateway.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const OUTAGE_MS = 20_000;
const LOOPS = 6;

let gw: TaskGateway;
let proxy: TcpProxy;
let api: ApiProcess | undefined;
let worker: WorkerProcess | undefined;
let dataDir: string;
let removeCatalog: () => Promise<void>;
let prefix: string;

beforeAll(async () => {
  // The harness runs no workers: the spawned worker process does the tasks' work, through the relay.
  gw = await startTaskGateway({ workers: false });
  // Under the harness prefix (cleaned by gw.close()) but a queue of its own: the harness's
  // in-process drainer, which reaches Postgres directly, must not drain what the processes queue.
  prefix = `${gw.env.REDIS_PREFIX}outage:`;
  const direct = new URL(gw.env.DATABASE_URL!);
  proxy = await startTcpProxy(direct.hostname, Number(direct.port || 5432));
  const proxied = new URL(direct);
  proxied.host = `127.0.0.1:${proxy.port}`;
  const catalog = await writeTaskCatalogFile(gw.sim.url);
  removeCatalog = catalog.remove;
  dataDir = await mkdtemp(path.join(tmpdir(), 'gw-outage-'));
  const env = {
    ...workerEnv(gw, catalog.file),
    DATABASE_URL: proxied.toString(),
    REDIS_PREFIX: prefix,
    CATALOG_FILE: catalog.file,
    DATA_DIR: dataDir,
    KEY_CACHE_TTL_MS: '1000',
  };
  api = await spawnApi(env);
  worker = await spawnWorker(
    { ...env, DATABASE_POOL_SIZE: '4' },
    'usage,task-submit,task-poll,task-mirror,task-settle,maintenance',
  );
}, 90_000);
afterAll(async () => {
  proxy?.restore();
  await api?.stop();
  await worker?.stop();
  await removeCatalog?.();
  await proxy?.close();
  await gw?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('Postgres outage under load', () => {
  it('no process ends, no 500; cached keys are served, unknown keys get a fast 503; usage and charges exact after', {
    timeout: 120_000,
  }, async () => {
    const funds = 50_000_000;
    const accounts = await Promise.all(Array.from({ length: 3 }, () => gw.account({ balance: funds })));
    const stranger = await gw.account({ balance: funds });
    const tasker = await gw.account({ balance: funds });
    // One key's calls carry a prompt template: its lookup must fall back on the cached version too.
    await gw.services.db.transaction().execute(async (trx) => {
      const { id } = await trx
        .insertInto('prompt_templates')
        .values({ user_id: accounts[0]!.userId, name: 'house-style' })
        .returning('id')
        .executeTakeFirstOrThrow();
      await writeTemplateParts(trx, id, [{ label: 'a', text: 'Be kind.', weight: 1 }], [accounts[0]!.keyId]);
    });

    const answered = new Map<string, string[]>(accounts.map((a) => [a.userId, []]));
    const statuses: number[] = [];
    let seq = 0;
    const call = async (a: (typeof accounts)[number]) => {
      const id = `outage-${seq++}`;
      const res = await postChat(api!.url, a.key, chatRequest('gpt-sim', `hello ${id}`), { 'x-request-id': id });
      statuses.push(res.status);
      if (res.status === 200) answered.get(a.userId)!.push(id);
      return res;
    };
    // Every key cached by the API (and its balance loaded into Redis) before the outage.
    for (const a of accounts) expect((await call(a)).status).toBe(200);

    let running = true;
    const failures: string[] = [];
    const loops = Array.from({ length: LOOPS }, async (_, i) => {
      while (running) {
        const res = await call(accounts[i % accounts.length]!);
        if (res.status !== 200) failures.push(`${res.status} ${res.text.slice(0, 200)}`);
      }
    });
    // Tasks that will be polling upstream while Postgres is away.
    const tasks: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await postJson(
        api!.url,
        '/v1/videos',
        tasker.key,
        videoBody(`[[sim:taskRunMs=${4_000 + i * 500}]] ${i}`),
      );
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      tasks.push(res.json.id as string);
    }
    await sleep(1_500);

    proxy.cut();
    const atCut = statuses.length;
    const cutAt = performance.now();
    const readyDuring: number[] = [];
    const strangerDuring: { status: number; ms: number; body: string }[] = [];
    while (performance.now() - cutAt < OUTAGE_MS) {
      readyDuring.push((await fetch(`${api!.url}/readyz`)).status);
      const started = performance.now();
      const res = await postChat(api!.url, stranger.key, chatRequest('gpt-sim', 'hi'));
      strangerDuring.push({ status: res.status, ms: performance.now() - started, body: res.text });
      await sleep(500);
    }
    // The Anthropic surface answers in its own format.
    const messages = await fetch(`${api!.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': stranger.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'gpt-sim', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const messagesBody = (await messages.json()) as { type?: string; error?: { type?: string } };
    const servedDuring = statuses.length - atCut;
    proxy.restore();

    await waitUntil(async () => (await fetch(`${api!.url}/readyz`)).status === 200, 30_000, 200);
    await sleep(1_500);
    running = false;
    await Promise.all(loops);

    expect(api!.child.exitCode, 'the API process ended').toBeNull();
    expect(worker!.child.exitCode, `the worker process ended: ${worker!.stderr()}`).toBeNull();
    expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);
    // Cached keys are served all along, well past their 1 s TTL (the templated one included).
    expect(failures).toEqual([]);
    expect(servedDuring).toBeGreaterThan(20);
    expect(readyDuring.length).toBeGreaterThan(5);
    expect(readyDuring.every((s) => s === 503)).toBe(true);
    expect(strangerDuring.map((s) => s.status)).toEqual(strangerDuring.map(() => 503));
    expect(Math.max(...strangerDuring.map((s) => s.ms))).toBeLessThan(2_000);
    expect(JSON.parse(strangerDuring[0]!.body).error.code).toBe('service_unavailable');
    expect(messages.status).toBe(503);
    expect(messagesBody.type).toBe('error');

    // Everything queued in Redis reaches Postgres: one record and one charge per answered call.
    const keys = redisKeys(prefix);
    await waitUntil(() => usageDrained(gw.services.redis, keys), 30_000, 100);
    // The tasks that ran through the outage end, each submitted once and charged once.
    for (const id of tasks) expect((await waitSettled(gw, id, 60_000)).status).toBe('succeeded');
    expect(gw.sim.stats().tasks['content-tasks'].taskCreates).toBe(tasks.length);
    await waitUntil(() => usageDrained(gw.services.redis, keys), 30_000, 100);
    const taskCharges = await expectConsistentLedger(gw.services.db, tasker.userId);
    expect(taskCharges.map((c) => c.request_id).sort()).toEqual([...tasks].sort());
    expect(taskCharges.every((c) => Math.abs(c.amount_micro_usd) === 5 * VIDEO_PER_SECOND['720p']!)).toBe(true);
    for (const a of accounts) {
      const records = await usageRecords(gw.services.db, a.userId);
      expect(records.map((r) => r.request_id).sort()).toEqual([...answered.get(a.userId)!].sort());
      const charges = await expectConsistentLedger(gw.services.db, a.userId);
      expect(charges.length).toBe(records.length);
      const charged = records.reduce((sum, r) => sum + r.charged_micro_usd, 0);
      expect(charges.reduce((sum, c) => sum - c.amount_micro_usd, 0)).toBe(charged);
      expect(charged).toBeGreaterThan(0);
    }
    console.log(
      `${statuses.length} calls, ${servedDuring} by the end of a ${OUTAGE_MS / 1000} s outage; stranger 503 in ≤ ${Math.round(Math.max(...strangerDuring.map((s) => s.ms)))} ms`,
    );
  });
});
