import type { Redis } from 'ioredis';

/**
 * Waits for private-protocol calls to end, through Redis pub/sub (never by polling Postgres): the
 * worker that ends a call publishes its id on one channel; every API process listens on its
 * subscriber connection and wakes whoever waits for that id, who then reads the call once. After a
 * reconnect every waiter is woken (a message may have been missed while disconnected).
 */
export class CallWaiter {
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(readonly channel: string) {}

  async subscribe(subscriber: Redis): Promise<void> {
    subscriber.on('message', (channel: string, id: string) => {
      if (channel === this.channel) this.wake(id);
    });
    subscriber.on('ready', () => {
      for (const id of [...this.waiters.keys()]) this.wake(id);
    });
    await subscriber.subscribe(this.channel);
  }

  /** Resolves when the call is said to have ended, or after `ms`; register before reading the call's state. */
  until(id: string, ms: number): { done: Promise<void>; cancel(): void } {
    let timer: NodeJS.Timeout | undefined;
    let wake!: () => void;
    const done = new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });
    let set = this.waiters.get(id);
    if (!set) this.waiters.set(id, (set = new Set()));
    set.add(wake);
    const cancel = () => {
      clearTimeout(timer);
      set!.delete(wake);
      if (set!.size === 0) this.waiters.delete(id);
      wake();
    };
    void done.then(cancel);
    return { done, cancel };
  }

  private wake(id: string): void {
    const set = this.waiters.get(id);
    if (!set) return;
    for (const wake of [...set]) wake();
  }
}

/** Says a call ended (its state is in Postgres already). */
export function publishCallEnded(redis: Redis, channel: string, id: string): Promise<number> {
  return redis.publish(channel, id);
}
