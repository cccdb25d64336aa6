import { randomUUID } from 'node:crypto';
import { WaitTimeoutError } from '../errors.js';
import { idSegment, nonEmpty, positive, printableKey } from '../validate.js';
import { attach, Resource, type WithRequestID } from './base.js';

export type VideoTask = WithRequestID<{
  id: string;
  status: string;
  stored_url?: string;
  provider_url?: string;
  [field: string]: unknown;
}>;
/** A created task, with the `Idempotency-Key` used: send it again to retry the creation by hand, never paid twice. */
export type CreatedVideo = VideoTask & { readonly idempotencyKey: string };

export interface VideoCreateParams {
  model: string;
  content: Array<Record<string, unknown>>;
  duration?: number;
  resolution?: string;
  generate_audio?: boolean;
  [field: string]: unknown;
}

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled', 'expired']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Videos extends Resource {
  /** `POST /v1/videos`: paid, never retried automatically; the Idempotency-Key is generated when not given. */
  async create(params: VideoCreateParams, options: { idempotencyKey?: string } = {}): Promise<CreatedVideo> {
    nonEmpty('model', params?.model);
    if (!Array.isArray(params.content) || params.content.length === 0)
      throw new TypeError('content must be a non-empty array of parts');
    const key =
      options.idempotencyKey === undefined
        ? `gwc-${randomUUID()}`
        : printableKey('idempotencyKey', options.idempotencyKey);
    const task = await this.request<VideoTask>('POST', '/v1/videos', {
      body: params,
      headers: { 'idempotency-key': key },
    });
    return attach(task, { idempotencyKey: key }) as CreatedVideo;
  }

  get(id: string): Promise<VideoTask> {
    return this.request('GET', `/v1/videos/${idSegment('id', id)}`);
  }

  list(
    query: { limit?: number; after?: string } = {},
  ): Promise<WithRequestID<{ data: VideoTask[]; has_more?: boolean; [k: string]: unknown }>> {
    return this.request('GET', '/v1/videos', { query });
  }

  cancel(id: string): Promise<VideoTask> {
    return this.request('POST', `/v1/videos/${idSegment('id', id)}/cancel`);
  }

  /** Polls until the task ends. Running out of `timeout` (ms) throws WaitTimeoutError and cancels nothing. */
  async wait(id: string, options: { timeout?: number; interval?: number } = {}): Promise<VideoTask> {
    const timeout = positive('timeout', options.timeout ?? 900_000);
    const interval = positive('interval', options.interval ?? 5_000);
    const deadline = Date.now() + timeout;
    for (;;) {
      const task = await this.get(id);
      if (TERMINAL.has(task.status)) return task;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new WaitTimeoutError(`task ${id} still ${task.status} after ${timeout} ms (not cancelled)`, task);
      await sleep(Math.min(interval, left));
    }
  }
}
