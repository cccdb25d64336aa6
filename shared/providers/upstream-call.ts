import type { IncomingHttpHeaders } from 'node:http';
import type { Span } from '@opentelemetry/api';
import type { Dispatcher } from 'undici';
import { endSpan, startUpstreamSpan } from '../telemetry/spans.js';

export interface UpstreamRequest {
  method: 'POST' | 'GET';
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

interface Waiter<T> {
  resolve(value: T): void;
  reject(err: Error): void;
}

/**
 * One request on a provider's keep-alive pool, driven through undici's dispatch handler rather than
 * `request()`: the hot path pays for no Readable body, no async iterator and no AbortSignal per call.
 * `started` settles when the status line and headers arrive; the body is then taken either whole
 * (`body()`) or chunk by chunk (`relay()`, with backpressure). `abort()` cancels at any point,
 * including while the request still waits for a pooled connection.
 */
export class UpstreamCall implements Dispatcher.DispatchHandler {
  statusCode = 0;
  headers: IncomingHttpHeaders = {};
  readonly started: Promise<this>;
  private startWaiter!: Waiter<this>;
  private controller: Dispatcher.DispatchController | undefined;
  private abortReason: Error | undefined;
  private failure: Error | undefined;
  private ended = false;
  private chunks: Buffer[] = [];
  private size = 0;
  private sink: ((chunk: Buffer) => boolean) | undefined;
  private endWaiter: Waiter<void> | undefined;
  /** The client span of this request while tracing is on (it carries the `traceparent` sent). */
  private readonly span: Span | undefined;

  constructor(pool: Dispatcher, request: UpstreamRequest) {
    this.started = new Promise<this>((resolve, reject) => {
      this.startWaiter = { resolve, reject };
    });
    // A caller that waits for `complete` instead learns of a failure there.
    this.started.catch(() => {});
    const traced = startUpstreamSpan(request.method, request.path, request.headers);
    this.span = traced?.span;
    pool.dispatch(
      {
        method: request.method,
        path: request.path,
        headers: traced?.headers ?? request.headers,
        body: request.body ?? null,
      },
      this,
    );
  }

  /** Cancels the request; a pending `started`, `body()` or `relay()` rejects with `reason`. */
  abort(reason: Error): void {
    if (this.ended || this.failure || this.abortReason) return;
    this.abortReason = reason;
    // Without a controller yet the request is still queued: it is aborted when it starts.
    this.controller?.abort(reason);
  }

  /** The whole response body. */
  body(): Promise<Buffer> {
    return this.complete().then((call) => call.received());
  }

  /** Settles when the whole response is in (status, headers and body: see `received`). */
  complete(): Promise<this> {
    return new Promise<void>((resolve, reject) => this.whenEnded({ resolve, reject })).then(() => this);
  }

  /** The body received so far (all of it once `complete` settled). */
  received(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
  }

  /**
   * Hands every chunk to `write` as it arrives (those that came before too); when `write` returns
   * false the upstream is paused until `resume()`. Settles when the response ends or fails.
   */
  relay(write: (chunk: Buffer) => boolean): Promise<void> {
    const early = this.chunks;
    this.chunks = [];
    this.sink = write;
    for (const chunk of early) if (!write(chunk)) this.controller?.pause();
    return new Promise<void>((resolve, reject) => this.whenEnded({ resolve, reject }));
  }

  resume(): void {
    this.controller?.resume();
  }

  /** Reads and drops the rest of the body (an answer that will not be used); never rejects. */
  async discard(): Promise<void> {
    await this.body().catch(() => undefined);
    this.chunks = [];
  }

  private whenEnded(waiter: Waiter<void>): void {
    if (this.failure) waiter.reject(this.failure);
    else if (this.ended) waiter.resolve();
    else this.endWaiter = waiter;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortReason) controller.abort(this.abortReason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.statusCode = statusCode;
    this.headers = headers;
    this.startWaiter.resolve(this);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.sink) {
      if (!this.sink(chunk)) controller.pause();
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  onResponseEnd(): void {
    endSpan(this.span, undefined, this.statusCode);
    this.ended = true;
    this.endWaiter?.resolve();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.failure = this.abortReason ?? err;
    endSpan(this.span, this.failure, this.statusCode || undefined);
    this.startWaiter.reject(this.failure);
    this.endWaiter?.reject(this.failure);
  }
}
