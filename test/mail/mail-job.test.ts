import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTaskWorkers, type TaskWorkers } from '../../workers/task-workers.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';

// Mail goes out through a BullMQ job: to a real SMTP server on loopback when SMTP_URL is set, to
// the outbox folder otherwise.
let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(() => smtp.close());

async function withWorkers(env: Record<string, string>, run: (gw: TestGateway) => Promise<void>): Promise<void> {
  const gw = await startTestGateway({ env });
  let workers: TaskWorkers | undefined;
  try {
    workers = startTaskWorkers(gw.services, {
      queues: 'mail',
      concurrency: '',
      maintenanceEveryMs: 60_000,
      staleAfterMs: 60_000,
      graceMs: 1_000,
    });
    await run(gw);
  } finally {
    await workers?.close();
    await gw.close();
  }
}

async function until<T>(read: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the mail job', () => {
  it('sends through SMTP from MAIL_FROM, and retries a refusal', async () => {
    smtp.refuseNext(1);
    await withWorkers({ SMTP_URL: smtp.url, MAIL_FROM: 'Gateway <codes@gateway.test>' }, async (gw) => {
      await gw.services.jobs.enqueue(
        'mail',
        { to: 'ada@example.test', subject: 'Your code', text: 'Your code is 123456.' },
        { jobId: 'mail-test-1' },
      );
      const mail = await until(() => smtp.inbox.find((m) => m.to === 'ada@example.test'));
      expect(mail.from).toBe('codes@gateway.test');
      expect(mail.data).toContain('Subject: Your code');
      expect(mail.data).toMatch(/\b123456\b/);
      expect(smtp.refusalsLeft()).toBe(0);
    });
  });

  it('writes to the outbox under DATA_DIR when no SMTP_URL is set', async () => {
    await withWorkers({}, async (gw) => {
      await gw.services.jobs.enqueue(
        'mail',
        { to: 'bob@example.test', subject: 'Hello', text: 'Your code is 654321.' },
        { jobId: 'mail-test-2' },
      );
      const outbox = gw.services.config.mail.outboxDir;
      const file = await until(async () => (await readdir(outbox).catch(() => [] as string[]))[0]);
      const text = await readFile(path.join(outbox, file), 'utf8');
      expect(text).toContain('To: bob@example.test');
      expect(text).toContain('654321');
    });
  });
});
