import type { Redis } from 'ioredis';
import type { CallError } from './call-error.js';

/** How a call ended, as its job announces it (so the waiting API needs no read). */
export interface CallEnded {
  status: 'succeeded' | 'failed';
  result?: unknown;
  error?: CallError;
}

/**
 * Waits for calls to end, through Redis pub/sub (never by polling Postgres): the worker that ends a
 * call publishes its id on one channel — a private chat call's job (workers/private/run-chat.ts),
 * the stream that ran one, and the settle job of every task (a private task call waits for it) —
 * and every API process listens on its subscriber connection and wakes whoever waits for that id,
 * who then reads the call once. After a reconnect every waiter is woken (a message may have been
 * missed while disconnected).
 */
export class CallWaiter {
  private readonly waiters = new Map<string, Set<(ended: CallEnded | undefined) => void>>();

  constructor(readonly channel: string) {}

  async subscribe(subscriber: Redis): Promise<void> {
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const space = message.indexOf(' ');
      let ended: CallEnded | undefined;
      try {
        ended = space === -1 ? undefined : (JSON.parse(message.slice(space + 1)) as CallEnded);
      } catch {
        ended = undefined;
      }
      this.wake(space === -1 ? message : message.slice(0, space), ended);
    });
    subscriber.on('ready', () => {
      for (const id of [...this.waiters.keys()]) this.wake(id, undefined);
    });
    await subscriber.subscribe(this.channel);
  }

  /**
   * Resolves when the call is said to have ended (with how, when the message says), or with
   * undefined after `ms` or a reconnect; register before the call can end.
   */
  until(id: string, ms: number): { done: Promise<CallEnded | undefined>; cancel(): void } {
    let timer: NodeJS.Timeout | undefined;
    let wake!: (ended: CallEnded | undefined) => void;
    const done = new Promise<CallEnded | undefined>((resolve) => {
      wake = resolve;
      timer = setTimeout(() => resolve(undefined), ms);
    });
    let set = this.waiters.get(id);
    if (!set) this.waiters.set(id, (set = new Set()));
    set.add(wake);
    const cancel = () => {
      clearTimeout(timer);
      set!.delete(wake);
      // Cancelled again after a later wait for the same id made a new set: that set is not this one's.
      if (set!.size === 0 && this.waiters.get(id) === set) this.waiters.delete(id);
      wake(undefined);
    };
    void done.then(cancel);
    return { done, cancel };
  }

  private wake(id: string, ended: CallEnded | undefined): void {
    const set = this.waiters.get(id);
    if (!set) return;
    for (const wake of [...set]) wake(ended);
  }
}

/** Says a call ended, and how (its state is in Postgres already). */
export function publishCallEnded(redis: Redis, channel: string, id: string, ended?: CallEnded): Promise<number> {
  return redis.publish(channel, ended ? `${id} ${JSON.stringify(ended)}` : id);
}
