// The event-loop probe of a process under test (lib/loop-probe.ts), read from the bench.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** A process's event loop over one phase: how late a 5 ms timer fired, and the time GC took. */
export interface LoopStats {
  elapsedMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  /** Time in GC pauses (all kinds) during the phase, ms. */
  gcMs: number;
}

/** The node flags that load the probe (`dir`: the compiled bench/lib folder). */
export function probeNodeArgs(dir: string): string[] {
  return ['--import', pathToFileURL(path.join(dir, 'loop-probe.js')).href];
}

/** The probe's figures since its previous read (and a fresh start); undefined if it does not answer. */
export async function readLoop(port: number): Promise<LoopStats | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/`);
    return res.ok ? ((await res.json()) as LoopStats) : undefined;
  } catch {
    return undefined;
  }
}
