/** Time as the domain sees it; tests move it to cross day and month boundaries. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

const DAY_MS = 86_400_000;

/** The labels of the UTC periods a time falls in: `20310115`, ISO week `2031W03`, `203101`. */
export interface SpendPeriods {
  readonly day: string;
  readonly week: string;
  readonly month: string;
}

/** UTC calendar periods: quota days, weeks (ISO 8601, from Monday) and months roll over at 00:00 UTC. */
// Every call names its quota day, week and month; formatting a date each time is measurable, so
// the current day's labels are remembered until it ends.
let dayCache = { start: 0, end: 0, labels: { day: '', week: '', month: '' } as SpendPeriods };

export function utcPeriods(ms: number): SpendPeriods {
  if (ms < dayCache.start || ms >= dayCache.end) {
    const iso = new Date(ms).toISOString();
    const start = startOfUtcDay(ms).getTime();
    dayCache = {
      start,
      end: start + DAY_MS,
      labels: Object.freeze({
        day: iso.slice(0, 10).replaceAll('-', ''),
        week: isoWeekLabel(ms),
        month: iso.slice(0, 7).replace('-', ''),
      }),
    };
  }
  return dayCache.labels;
}

export function utcDay(ms: number): string {
  return utcPeriods(ms).day;
}

export function utcMonth(ms: number): string {
  return utcPeriods(ms).month;
}

/** The ISO 8601 week in UTC, `<week-year>W<nn>`: the week-year is the year of the week's Thursday. */
function isoWeekLabel(ms: number): string {
  const thursday = startOfUtcIsoWeek(ms).getTime() + 3 * DAY_MS;
  const year = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
  return `${year}W${String(week).padStart(2, '0')}`;
}

/** Monday 00:00 UTC of the ISO week `ms` falls in. */
export function startOfUtcIsoWeek(ms: number): Date {
  const day = startOfUtcDay(ms);
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - sinceMonday * DAY_MS);
}

export function startOfUtcDay(ms: number): Date {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

export function startOfUtcMonth(ms: number): Date {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}
