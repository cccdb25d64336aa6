/** Time as the domain sees it; tests move it to cross day and month boundaries. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** UTC calendar periods: quota days and months roll over at 00:00 UTC. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
}

export function utcMonth(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7).replace('-', '');
}

export function startOfUtcDay(ms: number): Date {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

export function startOfUtcMonth(ms: number): Date {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}
