import type { Redis } from 'ioredis';

interface Waiter {
  resolve(reply: string): void;
  reject(err: Error): void;
}

/** More operations than this go out as several script calls (a long script blocks Redis). */
const MAX_OPS_PER_CALL = 256;

/**
 * Sends the admissions and finishes of all calls through ONE call of the STEP script at a time.
 * When nothing is in flight an operation goes out at once (after the current synchronous work, so
 * operations asked for together share the call); while a call is in flight, operations gather and
 * go out together the moment it answers. So an idle gateway pays one plain round trip per
 * operation, and a busy one sends fewer, fuller script calls, one per round trip: Redis parses, runs
 * and answers one command instead of dozens, and the client builds and writes one.
 */
export class StepBatch {
  private args: (string | number)[] = [];
  private waiters: Waiter[] = [];
  private scheduled = false;
  private inFlight = false;

  constructor(private readonly redis: Redis) {}

  /** Queues one operation (its flat arguments) and resolves with its own reply. */
  run(op: (string | number)[]): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      for (let i = 0; i < op.length; i++) this.args.push(op[i]!);
      this.waiters.push({ resolve, reject });
      if (this.waiters.length >= MAX_OPS_PER_CALL) this.send();
      else if (!this.scheduled && !this.inFlight) {
        this.scheduled = true;
        queueMicrotask(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (!this.inFlight && this.waiters.length > 0) this.send();
  };

  private send(): void {
    const { args, waiters } = this;
    this.args = [];
    this.waiters = [];
    this.inFlight = true;
    this.redis.gwStep(...args).then(
      (replies) => {
        this.answered();
        const list = replies as string[];
        for (let i = 0; i < waiters.length; i++) {
          const reply = list[i];
          if (reply === undefined) waiters[i]!.reject(new Error('the step script answered fewer replies than operations'));
          else if (reply.startsWith('ERR ')) waiters[i]!.reject(new Error(reply.slice(4)));
          else waiters[i]!.resolve(reply);
        }
      },
      (err: Error) => {
        this.answered();
        for (const waiter of waiters) waiter.reject(err);
      },
    );
  }

  /** The call in flight answered: what gathered meanwhile goes out now. */
  private answered(): void {
    this.inFlight = false;
    if (this.waiters.length > 0) this.send();
  }
}
