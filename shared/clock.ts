/** Time as the domain sees it; tests move it to cross day and month boundaries. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** UTC calendar periods: quota days and months roll over at 00:00 UTC. */
// Every call names its quota day and month; formatting a date each time is measurable, so the
// current day is remembered until it ends.
let dayCache = { start: 0, end: 0, day: '', month: '' };

function periods(ms: number) {
  if (ms < dayCache.start || ms >= dayCache.end) {
    const iso = new Date(ms).toISOString();
    const start = startOfUtcDay(ms).getTime();
    dayCache = {
      start,
      end: start + 86_400_000,
      day: iso.slice(0, 10).replaceAll('-', ''),
      month: iso.slice(0, 7).replace('-', ''),
    };
  }
  return dayCache;
}

export function utcDay(ms: number): string {
  return periods(ms).day;
}

export function utcMonth(ms: number): string {
  return periods(ms).month;
}

export function startOfUtcDay(ms: number): Date {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

export function startOfUtcMonth(ms: number): Date {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}
