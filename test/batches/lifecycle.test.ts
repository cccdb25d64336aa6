// A batch's other ends: cancelled mid-run (cancelling → cancelled, the partial output, only the
// lines that ran charged), expired at the end of its window (the domain clock moved past it: the
// partial output, the lines never run in the error file as batch_expired, only the lines that
// ran charged) — and each end's event written to the webhook outbox with the state change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEndpoint } from '../../shared/db/webhook-endpoints.js';
import { offsetClock } from '../support/gateway.js';
import { drained, expectConsistentLedger } from '../support/money.js';
import type { TaskGateway } from '../support/task-gateway.js';
import {
  chatLine,
  fileLines,
  openAi,
  slowBatchUnderway,
  startBatchGateway,
  uploadLines,
  waitBatchEnd,
} from './support.js';

const clock = offsetClock();
let gw: TaskGateway;
beforeAll(async () => {
  // One line at a time, each slow: a test sees the batch mid-run.
  gw = await startBatchGateway({ clock, env: { BATCH_CONCURRENCY: '1' } });
});
afterAll(async () => {
  await gw?.close();
});

/** An endpoint of the account listening to every batch event: the outbox writes events only for listeners. */
async function listen(userId: string) {
  await insertEndpoint(gw.services.db, {
    id: `we_${userId.slice(0, 8)}`,
    user_id: userId,
    url: 'https://hooks.example.test/batches',
    events: ['batch.completed', 'batch.failed', 'batch.expired', 'batch.cancelled'],
    description: null,
    secret: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXR0ZXN0c2VjcmV0',
  });
}

function eventsOf(subjectId: string) {
  return gw.services.db
    .selectFrom('webhook_events')
    .select(['type', 'payload'])
    .where('subject_id', '=', subjectId)
    .execute();
}

describe('batch lifecycle ends', () => {
  it('completed and failed batches each write their event in the outbox', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    await listen(acct.userId);
    const client = openAi(gw, acct.key);
    const good = await uploadLines(client, [chatLine('a', 'hi')]);
    const bad = await uploadLines(client, ['not json']);
    const done = await client.batches.create({
      input_file_id: good.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const failed = await client.batches.create({
      input_file_id: bad.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    expect((await waitBatchEnd(client, done.id)).status).toBe('completed');
    expect((await waitBatchEnd(client, failed.id)).status).toBe('failed');
    const [completedEvent] = await eventsOf(done.id);
    expect(completedEvent?.type).toBe('batch.completed');
    expect(JSON.parse(completedEvent!.payload)).toMatchObject({
      object: 'event',
      type: 'batch.completed',
      data: { id: done.id, object: 'batch' },
    });
    expect((await eventsOf(failed.id)).map((e) => e.type)).toEqual(['batch.failed']);
  });

  it('cancel: cancelling, then cancelled with the partial output; only the lines that ran are charged', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    await listen(acct.userId);
    const client = openAi(gw, acct.key);
    const created = await slowBatchUnderway(client, 20);
    const cancelling = await client.batches.cancel(created.id);
    expect(cancelling.status).toBe('cancelling');
    expect(cancelling.cancelling_at).not.toBeNull();
    const batch = await waitBatchEnd(client, created.id);
    expect(batch.status).toBe('cancelled');
    expect(batch.cancelled_at).not.toBeNull();
    const ran = batch.request_counts!.completed;
    expect(ran).toBeGreaterThanOrEqual(1);
    expect(ran).toBeLessThan(20);
    const output = await fileLines(client, batch.output_file_id);
    expect(output).toHaveLength(ran);
    const notRun = await fileLines(client, batch.error_file_id);
    expect(notRun).toHaveLength(20 - ran);
    expect(notRun[0]).toMatchObject({ response: null, error: { code: 'batch_cancelled' } });
    await drained(gw, 10_000);
    const charges = await expectConsistentLedger(gw.services.db, acct.userId);
    expect(charges.map((c) => c.request_id).sort()).toEqual(output.map((l) => l.id).sort());
    expect((await eventsOf(created.id)).map((e) => e.type)).toEqual(['batch.cancelled']);
    // Cancelling again answers the cancelled batch (only a batch that ended otherwise answers 409).
    await expect(client.batches.cancel(created.id)).resolves.toMatchObject({ status: 'cancelled' });
  });

  it('expired after the window (the clock moved past it): the partial output, the rest batch_expired; only the lines that ran are charged', async () => {
    const acct = await gw.account({ balance: 1_000_000 });
    await listen(acct.userId);
    const client = openAi(gw, acct.key);
    const created = await slowBatchUnderway(client, 20);
    expect(created.expires_at! - created.created_at!).toBe(24 * 3600);
    clock.advance(24 * 3600 * 1000 + 1_000);
    const batch = await waitBatchEnd(client, created.id);
    expect(batch.status).toBe('expired');
    expect(batch.expired_at).not.toBeNull();
    const ran = batch.request_counts!.completed;
    expect(ran).toBeLessThan(20);
    const output = await fileLines(client, batch.output_file_id);
    expect(output).toHaveLength(ran);
    const expired = await fileLines(client, batch.error_file_id);
    expect(expired).toHaveLength(20 - ran);
    expect(expired.every((l) => l.error?.code === 'batch_expired' && l.response === null)).toBe(true);
    await drained(gw, 10_000);
    const charges = await expectConsistentLedger(gw.services.db, acct.userId);
    expect(charges.map((c) => c.request_id).sort()).toEqual(output.map((l) => l.id).sort());
    expect((await eventsOf(created.id)).map((e) => e.type)).toEqual(['batch.expired']);
  });
});
