import type { Redis } from 'ioredis';

interface Held {
  resv: string;
  conc: readonly string[];
}

/**
 * Keeps the concurrency leases and reservations of this process's in-flight calls alive with one
 * process-wide timer and one Redis call per tick (never a timer per request). If the process dies
 * they stop being renewed and expire on their own.
 */
export class LeaseRenewer {
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly options: { leaseTtlMs: number; reservationTtlMs: number },
  ) {}

  track(callId: string, resv: string, conc: readonly string[]): void {
    this.held.set(callId, { resv, conc });
    this.timer ??= setInterval(
      () => void this.renew(),
      Math.max(100, Math.floor(Math.min(this.options.leaseTtlMs, this.options.reservationTtlMs) / 3)),
    ).unref();
  }

  untrack(callId: string): void {
    this.held.delete(callId);
  }

  async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const now = Date.now();
    // Per call, in the order the RENEW script reads them: id, reservations hash, lease keys.
    const args: (string | number)[] = [];
    for (const [id, h] of this.held) args.push(id, h.resv, h.conc.length, ...h.conc);
    await this.redis
      .gwRenew(now, now + this.options.leaseTtlMs, now + this.options.reservationTtlMs, ...args)
      .catch(() => {});
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
