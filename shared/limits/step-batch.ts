import type { Redis } from 'ioredis';

interface Waiter {
  resolve(reply: string): void;
  reject(err: Error): void;
}

const SENT: Promise<void> = Promise.resolve();

/** More operations than this in one turn go out as several script calls (a long script blocks Redis). */
const MAX_OPS_PER_CALL = 256;

/**
 * Gathers the admissions and finishes asked for within one turn of the event loop into ONE call of
 * the STEP script. Each call still waits for exactly one round trip, but under load many calls share
 * it: Redis parses, runs and answers one script call instead of dozens, and the client builds and
 * writes one command. Alone, an operation goes out at the end of the current turn.
 *
 * Measured, and kept this way: sending at once when nothing was in flight (and gathering only while
 * a call was) sent nearly one script call per operation at moderate load, which cost more CPU in the
 * API and in Redis and added latency (docs/decisions/0002-one-step-script-call-per-turn.md).
 */
export class StepBatch {
  private args: (string | number)[] = [];
  private waiters: Waiter[] = [];
  private scheduled = false;
  /** The latest script call: replies on one connection come in order, so it answers last. */
  private last: Promise<void> = Promise.resolve();
  /** Resolved when the gathered operations are written to Redis (created only when someone waits). */
  private written: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(private readonly redis: Redis) {}

  /** Queues one operation (its flat arguments) and resolves with its own reply. */
  run(op: (string | number)[]): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      for (let i = 0; i < op.length; i++) this.args.push(op[i]!);
      this.waiters.push({ resolve, reject });
      if (this.waiters.length >= MAX_OPS_PER_CALL) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  /**
   * Resolves once the operations queued so far are written to the Redis connection, before their
   * replies: what was written is carried out by Redis even if this process dies right after.
   */
  sent(): Promise<void> {
    if (this.waiters.length === 0) return SENT;
    if (!this.written) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.written = { promise, resolve };
    }
    return this.written.promise;
  }

  /** Resolves once every operation queued so far has its reply (a stopping process waits for it). */
  settled(): Promise<void> {
    this.flush();
    return this.last;
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const { args, waiters } = this;
    if (waiters.length === 0) return;
    const written = this.written;
    this.args = [];
    this.waiters = [];
    this.written = undefined;
    this.last = this.redis.gwStep(...args).then(
      (replies) => {
        const list = replies as string[];
        for (let i = 0; i < waiters.length; i++) {
          const reply = list[i];
          if (reply === undefined)
            waiters[i]!.reject(new Error('the step script answered fewer replies than operations'));
          else if (reply.startsWith('ERR ')) waiters[i]!.reject(new Error(reply.slice(4)));
          else waiters[i]!.resolve(reply);
        }
      },
      (err: Error) => {
        for (const waiter of waiters) waiter.reject(err);
      },
    );
    // The connection has no auto-pipelining: the command went to the socket in the call above.
    written?.resolve();
  };
}
