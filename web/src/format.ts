/**
 * Formatting for the profile's locale. Money arrives as integer micro-USD (1 USD = 1,000,000) and
 * is shown exactly: the decimal string is built with integer arithmetic and handed to
 * Intl.NumberFormat as a string, which formats decimal strings without passing through a float.
 */
const MICRO = 1_000_000n;

/**
 * A locale Intl accepts: the profile's, else the browser's. Browsers started from a POSIX
 * environment report tags such as `en-US@posix`, which Intl refuses with a RangeError (every
 * formatted number on the page would throw): the `@…` part is dropped, and `en-US` is the last resort.
 */
export function usableLocale(...candidates: (string | null | undefined)[]): string {
  for (const candidate of candidates) {
    if (!candidate) continue;
    for (const tag of [candidate, candidate.split('@')[0]!.replace(/_/g, '-')]) {
      try {
        return Intl.getCanonicalLocales(tag)[0] ?? 'en-US';
      } catch {
        // not a BCP 47 tag: try the next form
      }
    }
  }
  return 'en-US';
}

/** `1234500` → `"1.2345"`: the exact decimal USD amount of a micro-USD integer. */
export function microUsdToDecimal(micro: number | bigint | string): string {
  const value = BigInt(micro);
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  const fraction = (abs % MICRO).toString().padStart(6, '0').replace(/0+$/, '');
  return `${sign}${abs / MICRO}${fraction ? `.${fraction}` : ''}`;
}

/** A micro-USD amount as USD in the locale: at least cents, every non-zero micro digit kept. */
export function formatMoney(micro: number | bigint | string, locale: string): string {
  const format = new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: 6,
  });
  return format.format(microUsdToDecimal(micro) as Intl.StringNumericLiteral);
}

/** A typed USD amount (`12`, `0.5`, `3.141592`) as integer micro-USD; undefined when it is not one. */
export function parseUsd(text: string): number | undefined {
  const match = /^\s*(\d{1,9})(?:[.,](\d{0,6}))?\s*$/.exec(text);
  if (!match) return undefined;
  const micro = BigInt(match[1] ?? '0') * MICRO + BigInt((match[2] ?? '').padEnd(6, '0'));
  return Number(micro);
}

/** Integer micro-USD as the text of a USD input field (no grouping, `.` decimal). */
export const usdField = (micro: number | null | undefined): string =>
  micro === null || micro === undefined ? '' : microUsdToDecimal(micro);

export const formatNumber = (n: number, locale: string) => new Intl.NumberFormat(locale).format(n);

export const formatDateTime = (iso: string, locale: string) =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));

/** A `YYYY-MM-DD` day (UTC, as the API groups days) in the locale. */
export const formatDay = (day: string, locale: string) =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));

/** Today (UTC) minus `days`, as `YYYY-MM-DD`. */
export function utcDay(daysAgo = 0, from = new Date()): string {
  return new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate() - daysAgo))
    .toISOString()
    .slice(0, 10);
}

/** Every `YYYY-MM-DD` day from `start` up to, not including, the instant `end` (UTC). */
export function daysBetween(start: string, end: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${start.slice(0, 10)}T00:00:00Z`); t < Date.parse(end) && days.length < 400; t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** A day report's rows as one value per day of its range, days without calls at 0. */
export function spendByDay(report: {
  start: string;
  end: string;
  rows: { group: string | null; charged_micro_usd: number }[];
}): { labels: string[]; values: number[] } {
  const spend = new Map(report.rows.map((r) => [r.group, r.charged_micro_usd]));
  const labels = daysBetween(report.start, report.end);
  return { labels, values: labels.map((d) => spend.get(d) ?? 0) };
}
