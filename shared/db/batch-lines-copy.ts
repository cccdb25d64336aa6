import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { rawClient, type Db } from './index.js';

export interface NewLine {
  batch_id: string;
  line: number;
  custom_id: string;
  /** The body's JSON text. */
  body: string;
}

const COPY_LINES = 'COPY batch_lines (batch_id, line, custom_id, body) FROM STDIN';
/** COPY text gathered before one write to the stream: a few dozen lines, not one write per line. */
const WRITE_CHARS = 64 * 1024;

// COPY's text format: a backslash, tab, newline or carriage return in a value is escaped.
const SPECIAL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const copyText = (value: string) => value.replace(SPECIAL, (c) => ESCAPES[c]!);

/**
 * A batch's lines written as they are validated, through ONE `COPY` streamed for the whole file:
 * each line's text goes to the stream at once (a few dozen lines gathered per write, the stream's
 * backpressure awaited), so nothing of the file accumulates in the worker — holding chunks of
 * thousands of rows until their COPY was the validation's share of the batch worker's heap growth
 * (bench/README.md's "Batches" records the figures). The lines commit together when the COPY ends,
 * and a validation that dies (or is aborted) leaves none. A COPY has no ON CONFLICT: a validation
 * run again after a crash finds no lines of the first run, and removes them anyway (deleteLines).
 */
export class LinesCopy {
  private text = '';
  private readonly input = new PassThrough();
  private readonly copied: Promise<void>;

  private constructor(private readonly client: PoolClient) {
    this.copied = pipeline(this.input, client.query(copyFrom(COPY_LINES)));
    // Awaited in `end` (or ended by `abort`); never an unhandled rejection meanwhile.
    this.copied.catch(() => undefined);
  }

  static async open(db: Db): Promise<LinesCopy> {
    return new LinesCopy(await rawClient(db));
  }

  async write(r: NewLine): Promise<void> {
    this.text += `${r.batch_id}\t${r.line}\t${copyText(r.custom_id)}\t${copyText(r.body)}\n`;
    if (this.text.length >= WRITE_CHARS) await this.flush();
  }

  /** Ends the COPY: the lines written commit together. */
  async end(): Promise<void> {
    let broken = false;
    try {
      await this.flush();
      this.input.end();
      await this.copied;
    } catch (err) {
      broken = true;
      throw err;
    } finally {
      this.client.release(broken);
    }
  }

  /** Ends the COPY without committing anything (a refused file, or the input failed). */
  async abort(): Promise<void> {
    this.input.destroy(new Error('the validation stopped: no line is kept'));
    await this.copied.catch(() => undefined);
    this.client.release(true);
  }

  private async flush(): Promise<void> {
    if (this.text === '') return;
    const ok = this.input.write(this.text);
    this.text = '';
    if (!ok) await Promise.race([once(this.input, 'drain'), this.copied]);
  }
}

export async function deleteLines(db: Db, batchId: string): Promise<void> {
  await db.deleteFrom('batch_lines').where('batch_id', '=', batchId).execute();
}
