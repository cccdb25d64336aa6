import type { CatalogModel } from '../catalog/index.js';
import type { CacheStatus } from '../response-cache/metrics.js';
import type { JsonAnswer } from './json-answer.js';

/**
 * Where a text call's answer goes, as each caller of runTextCall delivers it: the HTTP relay and
 * JSON answer (api/generation/relay-sink.ts), the private protocol's worker (it stores the result),
 * a batch worker. Called in this order: `limitHeaders` for each admission, `model` once one model's
 * answer stands; then either the whole answer (`answer`), or the stream (`open`, `chunk`s,
 * `hold`, then `end` or `interrupt`); or `fail` when the call failed before any answer. A plain
 * object with methods: nothing is allocated per chunk.
 */
export interface TextSink {
  /** The rate-limit headers of an admission, for the answer. */
  limitHeaders(headers: Record<string, string>): void;
  /** What the response cache did with the call (HIT, MISS, BYPASS), before anything is answered; sinks without headers ignore it. */
  cacheStatus?(status: CacheStatus): void;
  /** The model whose answer (or refusal) stands, before it is read. */
  model(model: CatalogModel): void;
  /** The whole answer, once its settlement is written; a promise when delivering it takes a round trip. */
  answer(answer: JsonAnswer): void | Promise<void>;
  /** The stream begins; `resume` restarts an upstream a `chunk` paused. */
  open(resume: () => void): void;
  /** Bytes for the client; false when it is slow (the upstream pauses until `resume`). */
  chunk(bytes: Buffer): boolean;
  /** What was written in this turn waits for `end`, so the last events and the end marker leave in one write. */
  hold(): void;
  /** Runs before a complete stream's end marker goes out (the private protocol stores the result first). */
  beforeEnd?(): Promise<void>;
  /** A complete stream's end marker, once the settlement is written. */
  end(marker: string | Buffer): void;
  /** The upstream cut or failed the stream: the client's protocol's error event (`event` where the stream decides it). */
  interrupt(code: string, message: string, event: string | undefined): void;
  /** The call failed before its answer began (a refusal, an upstream error): answered or kept by the sink. */
  fail(err: unknown): Promise<void>;
  /** A failure the caller runs again (a job retried): not recorded, only its holds released. */
  retries?(err: unknown): boolean;
}
