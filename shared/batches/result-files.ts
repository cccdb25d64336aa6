import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { linesWithResults } from '../db/batches.js';
import type { Db } from '../db/index.js';
import type { ObjectStore } from '../storage/object-store.js';
import { fileObjectKey } from './files.js';
import { lineRequestId } from './line-ids.js';

const CHUNK = 1_000;

/** Why a line never ran: the error its output line carries. */
export const UNRUN: Record<'expired' | 'cancelled', { code: string; message: string }> = {
  expired: {
    code: 'batch_expired',
    message: 'This request could not be executed before the completion window expired.',
  },
  cancelled: { code: 'batch_cancelled', message: 'This request was not executed because the batch was cancelled.' },
};

interface ResultBatch {
  id: string;
  user_id: string;
  created_at: Date;
}

/** One result file being written: its object's upload started at its first line. */
class ResultFile {
  private stream: PassThrough | undefined;
  private stored: Promise<{ size: number }> | undefined;
  lines = 0;

  constructor(
    private readonly storage: ObjectStore,
    readonly id: string,
    readonly objectKey: string,
  ) {}

  async write(line: string): Promise<void> {
    if (!this.stream) {
      this.stream = new PassThrough();
      this.stored = this.storage.put(this.objectKey, this.stream, { contentType: 'application/jsonl' });
      // A failed upload is awaited in `close`; until then it must not be an unhandled rejection.
      this.stored.catch(() => undefined);
    }
    this.lines++;
    if (!this.stream.write(`${line}\n`)) await Promise.race([once(this.stream, 'drain'), this.stored]);
  }

  /** The stored size; undefined when no line was written (no file). */
  async close(): Promise<number | undefined> {
    if (!this.stream) return undefined;
    this.stream.end();
    return (await this.stored!).size;
  }
}

/**
 * The output file (lines answered 200) and the error file (lines failed, and lines never run when
 * the batch expired or was cancelled), in input order, OpenAI's line shape
 * `{id, custom_id, response: {status_code, request_id, body} | null, error}` — streamed from the
 * stored lines to object storage, a chunk at a time. Their ids are fixed by the batch, so a
 * finalization run again after a crash rewrites the same files. A file with no line is not made.
 */
export async function writeResultFiles(
  db: Db,
  storage: ObjectStore,
  batch: ResultBatch,
  unrun: keyof typeof UNRUN | undefined,
): Promise<{ outputFileId: string | null; errorFileId: string | null }> {
  const suffix = batch.id.slice(batch.id.indexOf('_') + 1);
  const output = new ResultFile(
    storage,
    `file-${suffix}-output`,
    fileObjectKey(batch.user_id, `file-${suffix}-output`),
  );
  const errors = new ResultFile(
    storage,
    `file-${suffix}-errors`,
    fileObjectKey(batch.user_id, `file-${suffix}-errors`),
  );
  const unrunError = unrun ? JSON.stringify(UNRUN[unrun]) : undefined;
  for (let after = 0; ; ) {
    const rows = await linesWithResults(db, batch.id, after, CHUNK);
    for (const row of rows) {
      const id = row.request_id ?? lineRequestId(batch.id, row.custom_id);
      const head = `{"id":${JSON.stringify(id)},"custom_id":${JSON.stringify(row.custom_id)},`;
      if (row.status === 'pending') {
        if (unrunError) await errors.write(`${head}"response":null,"error":${unrunError}}`);
        continue;
      }
      const response = `{"status_code":${row.status_code},"request_id":${JSON.stringify(id)},"body":${row.response}}`;
      await (row.status === 'succeeded' ? output : errors).write(`${head}"response":${response},"error":null}`);
    }
    if (rows.length < CHUNK) break;
    after = rows.at(-1)!.line;
  }
  const ids: { outputFileId: string | null; errorFileId: string | null } = { outputFileId: null, errorFileId: null };
  for (const [file, field] of [
    [output, 'outputFileId'],
    [errors, 'errorFileId'],
  ] as const) {
    const size = await file.close();
    if (size === undefined) continue;
    await db
      .insertInto('files')
      .values({
        id: file.id,
        user_id: batch.user_id,
        purpose: 'batch_output',
        filename: `${batch.id}_${field === 'outputFileId' ? 'output' : 'error'}.jsonl`,
        bytes: size,
        lines: file.lines,
        object_key: file.objectKey,
      })
      .onConflict((oc) => oc.column('id').doUpdateSet({ bytes: size, lines: file.lines }))
      .execute();
    ids[field] = file.id;
  }
  return ids;
}
