// Webhook tests: a real receiver (node:http on loopback), a task gateway whose in-process workers
// include the webhook queue, an SMTP server for the disabling notice, and console helpers.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Clock } from '../../shared/clock.js';
import { recordEvent } from '../../shared/webhooks/outbox.js';
import { startTaskWorkers, type TaskWorkers } from '../../workers/task-workers.js';
import { api, signIn, type Json, type Reply } from '../console/helpers.js';
import { waitUntil } from '../support/http.js';
import { ROOT } from '../support/processes.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { startTaskGateway, type TaskGateway } from '../support/task-gateway.js';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** performance.now() when the request arrived. */
  at: number;
}

/** How the receiver answers one request: a status (with an optional body), or hold it open until released. */
export type Answer = number | { status: number; body?: string; headers?: Record<string, string> } | 'hold';

export interface Receiver {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  received: Received[];
  /** The next requests get these answers, in order; after them every request gets the default (204). */
  answer(...plan: Answer[]): void;
  /** What every request gets once the planned answers are used up. */
  answerAlways(answer: Answer): void;
  /** TCP connections accepted so far (a refused address never gets one). */
  connections(): number;
  /** Resolves once `count` requests (that satisfy `where`) have arrived. */
  waitFor(count: number, where?: (r: Received) => boolean, timeoutMs?: number): Promise<Received[]>;
  /** Answers every held request with this status. */
  release(status?: number): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const plan: Answer[] = [];
  const held: ServerResponse[] = [];
  const arrivals = new EventEmitter();
  let fallback: Answer = 204;
  let connections = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      received.push({
        path: req.url ?? '/',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      });
      const next = plan.shift() ?? fallback;
      if (next === 'hold') held.push(res);
      else if (typeof next === 'number') res.writeHead(next).end();
      else res.writeHead(next.status, next.headers ?? {}).end(next.body ?? '');
      arrivals.emit('request');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    answer: (...answers) => plan.push(...answers),
    answerAlways: (answer) => {
      fallback = answer;
    },
    connections: () => connections,
    waitFor(count, where = () => true, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const matching = received.filter(where);
          if (matching.length < count) return;
          cleanup();
          resolve(matching);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${received.filter(where).length} of ${count} deliveries within ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          arrivals.off('request', check);
        };
        arrivals.on('request', check);
        check();
      });
    },
    release(status = 204) {
      for (const res of held.splice(0)) res.writeHead(status).end();
    },
    async close() {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export interface WebhookGateway extends TaskGateway {
  smtp: TestSmtp;
  webhookWorkers: TaskWorkers;
}

/** Every queue a task's or a batch's webhook needs, in this process: the task steps, batches, deliveries, mail and maintenance. */
export const WEBHOOK_TEST_QUEUES = 'task-submit,task-poll,task-mirror,task-settle,batch,webhook,mail,maintenance';

/**
 * A task gateway for webhook tests: http and loopback endpoints allowed (WEBHOOK_ALLOW_INSECURE_URLS),
 * retries 50 ms apart (doubling), mail to a test SMTP server, and the workers in this process.
 */
export async function startWebhookGateway(
  options: { env?: Record<string, string>; clock?: Clock; workers?: boolean } = {},
): Promise<WebhookGateway> {
  const smtp = await startSmtp();
  const gw = await startTaskGateway({
    workers: false,
    ...(options.clock ? { clock: options.clock } : {}),
    env: { WEBHOOK_ALLOW_INSECURE_URLS: 'true', WEBHOOK_RETRY_BASE_MS: '50', SMTP_URL: smtp.url, ...options.env },
  });
  const { config } = gw.services;
  const webhookWorkers = startTaskWorkers(gw.services, {
    queues: options.workers === false ? 'maintenance' : WEBHOOK_TEST_QUEUES,
    concurrency: '',
    maintenanceEveryMs: config.tasks.maintenanceEveryMs,
    staleAfterMs: config.tasks.reconcileAfterMs,
    graceMs: config.shutdownGraceMs,
  });
  return {
    ...gw,
    smtp,
    webhookWorkers,
    async close() {
      await webhookWorkers.close();
      await gw.close();
      await smtp.close();
    },
  };
}

/** A fresh account with a session token (and its API key, for task calls). */
export async function owner(gw: TaskGateway, balance = 50_000_000) {
  const account = await gw.account({ balance });
  const session = await signIn(gw, account.email);
  return { ...account, token: session.token };
}

/** A fresh account with one endpoint at `<to><path>` subscribed to `events`, and the endpoint (with its secret). */
export async function subscribedOwner(gw: TaskGateway, to: Receiver, events: string[], path: string) {
  const account = await owner(gw);
  const created = await createEndpoint(gw, account.token, { url: `${to.origin}${path}`, events });
  if (created.status !== 201) throw new Error(`the endpoint was not created: ${JSON.stringify(created.json)}`);
  return { ...account, endpoint: created.json.data as { id: string; secret: string } };
}

export function createEndpoint(
  gw: TaskGateway,
  token: string,
  body: { url: string; events: string[]; description?: string },
): Promise<Reply> {
  return api(gw, 'POST', '/webhooks', { token, body });
}

/** Waits until the delivery (by id, or the endpoint's only one) satisfies `check`; returns its view. */
export async function waitDelivery(
  gw: TaskGateway,
  token: string,
  endpointId: string,
  check: (d: Json) => boolean,
  timeoutMs = 15_000,
): Promise<Json> {
  let found: Json | undefined;
  await waitUntil(
    async () => {
      const page = await api(gw, 'GET', `/webhooks/${endpointId}/deliveries`, { token });
      found = (page.json.list as Json[]).find(check);
      return found !== undefined;
    },
    timeoutMs,
    25,
  );
  return found!;
}

const PYTHON_VERIFY = `
import json, sys
from gateway_client import WebhookVerificationError, verify_webhook
job = json.load(sys.stdin)
try:
    print(json.dumps({"event": verify_webhook(job["body"].encode(), job["headers"], job["secret"])}))
except WebhookVerificationError as err:
    print(json.dumps({"refused": str(err)}))
`;

/** verify_webhook of the Python client (the source tree, run by python3): the event, or what it refused. */
export async function verifyWithPython(
  body: string,
  headers: Record<string, string>,
  secret: string,
): Promise<{ event?: unknown; refused?: string }> {
  const child = spawn('python3', ['-c', PYTHON_VERIFY], {
    env: { ...process.env, PYTHONPATH: path.join(ROOT, 'clients', 'python'), PYTHONDONTWRITEBYTECODE: '1' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin.end(JSON.stringify({ body, headers, secret }));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`python3 exited ${code}: ${err}`);
  return JSON.parse(out) as { event?: unknown; refused?: string };
}

/**
 * A `video.completed` event of the account and its delivery to each subscribed endpoint, written
 * as a task's end writes them but with no job enqueued: what a crash between the commit and the
 * enqueue leaves. Returns the delivery ids.
 */
export function writeTaskEvent(gw: TaskGateway, userId: string, taskId: string, createdAt: Date): Promise<string[]> {
  return gw.services.db
    .transaction()
    .execute((trx) =>
      recordEvent(
        trx,
        { userId, type: 'video.completed', subject: { id: taskId, object: 'video' }, createdAt },
        { subscribers: true },
      ),
    );
}
