// Shared-machine guards for the issue benchmarks (limits.ts, tasks.ts): wait for a quiet machine
// before a phase, and measure how much of the phase's CPU went to processes outside the run.
import { CLOCK_TICKS_PER_SECOND, cpuMicros, hostJiffies, snapshot, type CpuSnapshot } from './processes.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface QuietSettings {
  /** Share of both cores other processes may use before a phase starts (else wait). */
  busy: number;
  /** Longest wait before one phase, seconds. */
  waitS: number;
  /** All the waiting of one run together, seconds. */
  budgetS: number;
  log: (message: string) => void;
}

/** Waits (bounded per phase and per run) until the machine is nearly idle. */
export class QuietGuard {
  private budgetMs: number;

  constructor(private readonly settings: QuietSettings) {
    this.budgetMs = settings.budgetS * 1000;
  }

  /** Returns the busy share (0..1) of both cores in the last 500 ms sample. */
  async wait(): Promise<number> {
    const started = Date.now();
    const deadline = started + Math.min(this.settings.waitS * 1000, this.budgetMs);
    for (;;) {
      const a = hostJiffies();
      await sleep(500);
      const b = hostJiffies();
      const busy = b.total > a.total ? (b.busy - a.busy) / (b.total - a.total) : 0;
      if (busy <= this.settings.busy || Date.now() >= deadline) {
        this.budgetMs = Math.max(0, this.budgetMs - (Date.now() - started));
        if (busy > this.settings.busy)
          this.settings.log(`machine still ${Math.round(busy * 100)}% busy before the phase; measuring anyway`);
        return busy;
      }
    }
  }
}

export interface MeterResult {
  /** CPU microseconds per role over the measured span. */
  cpuUs: Record<string, number>;
  /** Share of both cores busy during the span (everything on the machine), 0..1. */
  hostBusy: number;
  /** Share of both cores used by processes that are not part of the run, 0..1. */
  foreign: number;
  elapsedS: number;
}

/**
 * CPU counters of the run's processes around a span. `roles` name what is reported; `own` is every
 * process of the run (roles included), so whatever else was busy counts as foreign load.
 */
export function startMeter(
  roles: Record<string, number[]>,
  own: number[],
): { stop(late?: Record<string, number[]>): MeterResult } {
  const pids = [...new Set([...own, ...Object.values(roles).flat()])];
  const before: CpuSnapshot = snapshot(pids);
  const hostBefore = hostJiffies();
  const loadgenBefore = process.cpuUsage();
  const started = performance.now();
  return {
    /**
     * `late`: the roles' pids again, looked up at the end: processes that appeared during the span
     * (Postgres backends a pool opened meanwhile) count with all their CPU, which is all the span's.
     */
    stop(late) {
      for (const [role, rolePids] of Object.entries(late ?? {})) {
        for (const pid of rolePids) {
          if (before.has(pid)) continue;
          before.set(pid, 0);
          pids.push(pid);
          (roles[role] ??= []).push(pid);
        }
      }
      const after = snapshot(pids);
      const hostAfter = hostJiffies();
      const loadgen = process.cpuUsage(loadgenBefore);
      const cpuUs: Record<string, number> = {};
      for (const [role, rolePids] of Object.entries(roles)) cpuUs[role] = cpuMicros(before, after, rolePids);
      cpuUs.loadgen = loadgen.user + loadgen.system;
      const total = hostAfter.total - hostBefore.total;
      const busy = hostAfter.busy - hostBefore.busy;
      const ownTicks = (cpuMicros(before, after) * CLOCK_TICKS_PER_SECOND) / 1_000_000;
      return {
        cpuUs,
        hostBusy: total > 0 ? busy / total : Number.NaN,
        foreign: total > 0 ? Math.max(0, busy - ownTicks) / total : Number.NaN,
        elapsedS: (performance.now() - started) / 1000,
      };
    },
  };
}

/** Foreign load above this share of both cores marks a phase as disturbed (as in run.ts). */
export const NOISY = 0.1;

export const num = (name: string, def: number): number => {
  const v = process.env[name];
  return v === undefined || v === '' ? def : Number(v);
};
