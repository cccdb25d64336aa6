import type { Readable } from 'node:stream';
import type { Upstream } from '../registry.js';

export type UpstreamTaskStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** An upstream task as the gateway needs it, whatever the protocol. */
export interface TaskSnapshot {
  status: UpstreamTaskStatus;
  /** 0-100 when the provider reports it. */
  progress?: number | undefined;
  /** Where the result can be fetched; empty until it succeeded, or when only `download` can fetch it. */
  resultUrls: string[];
  usage?: Record<string, unknown> | undefined;
  error?: { code: string; message: string } | undefined;
}

export interface TaskToSubmit {
  /** The gateway's task id, sent as the upstream's Idempotency-Key: a retried submit never makes a second task. */
  id: string;
  kind: 'video' | 'image';
  upstreamModel: string;
  request: Record<string, unknown>;
}

export interface DownloadedResult {
  body: Readable;
  contentType: string;
  size: number | undefined;
}

/** A protocol for asynchronous tasks: create, read, cancel, and fetch the result. */
export interface TaskProvider {
  create(upstream: Upstream, task: TaskToSubmit): Promise<{ upstreamId: string }>;
  /** undefined when the upstream no longer knows the task. */
  get(upstream: Upstream, upstreamId: string): Promise<TaskSnapshot | undefined>;
  cancel(upstream: Upstream, upstreamId: string): Promise<void>;
  download(upstream: Upstream, upstreamId: string, index: number, url: string | undefined): Promise<DownloadedResult>;
}

/** An upstream answer that is not a success; `retryable` for 429, 5xx and transport failures. */
export class UpstreamTaskError extends Error {
  constructor(
    readonly status: number,
    readonly retryable: boolean,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamTaskError';
  }
}
