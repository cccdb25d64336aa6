// A worker process SIGKILLed mid-batch, twice: the batch resumes on the next worker where it
// stopped, and ends completed with every line answered once in the output file and charged once
// (a line in flight at the kill runs again, under the same request id: its one charge stands).
// And one SIGKILLed mid-validation (its COPY of the lines under way): nothing of that validation is
// kept, and the next worker validates the file again from the start, each line stored once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/http.js';
import { drained, expectConsistentLedger } from '../support/money.js';
import {
  spawnWorker,
  workerEnv,
  writeTaskCatalogFile,
  type TaskGateway,
  type WorkerProcess,
} from '../support/task-gateway.js';
import { writeFile } from 'node:fs/promises';
import YAML from 'yaml';
import { sql } from 'kysely';
import { findBatch } from '../../shared/db/batches.js';
import { batchCatalog, chatLine, fileLines, openAi, startBatchGateway, uploadLines, waitBatchEnd } from './support.js';

const LINES = 60;
const VALIDATED_LINES = 50_000;
let gw: TaskGateway;
let catalog: { file: string; remove(): Promise<void> };
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  // The API and the usage drain here; the batch job only in the worker processes.
  gw = await startBatchGateway({ workers: false });
  catalog = await writeTaskCatalogFile(gw.sim.url);
  await writeFile(catalog.file, YAML.stringify(batchCatalog(gw.sim.url)));
});
afterAll(async () => {
  await worker?.stop('SIGKILL');
  await gw?.close();
  await catalog?.remove();
});

const start = () =>
  spawnWorker(
    {
      ...workerEnv(gw, catalog.file),
      BATCH_CONCURRENCY: '4',
      // A killed worker's batch job is taken up again within seconds, not the default 30.
      WORKER_LOCK_MS: '2000',
      WORKER_STALLED_INTERVAL_MS: '1000',
    },
    'batch,maintenance',
  );

describe('a batch worker killed mid-batch', () => {
  it('resumes on the next worker: every line answered once and charged once', async () => {
    const acct = await gw.account({ balance: 50_000_000 });
    const client = openAi(gw, acct.key);
    const file = await uploadLines(
      client,
      Array.from({ length: LINES }, (_, i) => chatLine(`line-${i}`, `slow [[sim:latencyMs=150]] ${i}`)),
    );
    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const completed = async () => (await client.batches.retrieve(created.id)).request_counts!.completed;
    for (const atLeast of [10, 25]) {
      worker = await start();
      await waitUntil(async () => (await completed()) >= atLeast, 60_000, 50);
      await worker.stop('SIGKILL');
    }
    expect(await completed()).toBeLessThan(LINES);
    worker = await start();
    const batch = await waitBatchEnd(client, created.id, 90_000);
    expect(batch.status).toBe('completed');
    expect(batch.request_counts).toEqual({ total: LINES, completed: LINES, failed: 0 });
    const output = await fileLines(client, batch.output_file_id);
    expect(output.map((l) => l.custom_id)).toEqual(Array.from({ length: LINES }, (_, i) => `line-${i}`));
    await drained(gw, 10_000);
    const charges = await expectConsistentLedger(gw.services.db, acct.userId);
    expect(charges).toHaveLength(LINES);
    expect(new Set(charges.map((c) => c.request_id))).toEqual(new Set(output.map((l) => l.id)));
  });

  it('killed mid-validation: nothing of it is kept; the next worker validates the file again, each line once', async () => {
    const acct = await gw.account({ balance: 50_000_000 });
    const client = openAi(gw, acct.key);
    // Long enough to validate that the kill falls inside it (its COPY streams for a second or more).
    const lines = Array.from({ length: VALIDATED_LINES }, (_, i) => chatLine(`v-${i}`, `hi ${i}`));
    const file = await uploadLines(client, lines);
    worker = await start();
    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const stored = () =>
      gw.services.db
        .selectFrom('batch_lines')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('batch_id', '=', created.id)
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n));
    // The validation's COPY, seen from Postgres, streaming the lines as they are checked.
    const copying = async () =>
      (
        await sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity
          WHERE datname = current_database() AND state = 'active' AND query LIKE 'COPY batch_lines%'`.execute(
          gw.services.db,
        )
      ).rows[0]!.n !== '0';
    await waitUntil(copying, 60_000, 10);
    await worker.stop('SIGKILL');
    expect((await findBatch(gw.services.db, created.id))?.status, 'the kill fell after the validation').toBe(
      'validating',
    );
    expect(await stored()).toBe(0);

    worker = await start();
    await waitUntil(async () => (await findBatch(gw.services.db, created.id))?.status !== 'validating', 60_000, 50);
    // Validated again: run a few lines, then cancel (running 50,000 lines is not the point).
    await client.batches.cancel(created.id);
    const batch = await waitBatchEnd(client, created.id, 90_000);
    expect(batch.status).toBe('cancelled');
    expect(batch.request_counts!.total).toBe(VALIDATED_LINES);
    const rows = await gw.services.db
      .selectFrom('batch_lines')
      .select(['line', 'custom_id'])
      .where('batch_id', '=', created.id)
      .orderBy('line')
      .execute();
    expect(rows.map((r) => r.custom_id)).toEqual(lines.map((l) => l.custom_id));
    expect(rows.map((r) => r.line)).toEqual(lines.map((_, i) => i + 1));
    const results = [
      ...(await fileLines(client, batch.output_file_id)),
      ...(await fileLines(client, batch.error_file_id)),
    ];
    expect(new Set(results.map((l) => l.custom_id)).size).toBe(VALIDATED_LINES);
    await drained(gw, 10_000);
    expect(await expectConsistentLedger(gw.services.db, acct.userId)).toHaveLength(batch.request_counts!.completed);
  });
});
