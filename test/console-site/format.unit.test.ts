import { describe, expect, it } from 'vitest';
import { daysBetween, formatMoney, microUsdToDecimal, parseUsd, usableLocale } from '../../web/src/format.js';

// The console shows money from integer micro-USD exactly: no float on the way.
describe('console money formatting', () => {
  it('turns micro-USD into the exact decimal amount', () => {
    expect(microUsdToDecimal(0)).toBe('0');
    expect(microUsdToDecimal(1)).toBe('0.000001');
    expect(microUsdToDecimal(1_234_500)).toBe('1.2345');
    expect(microUsdToDecimal(-2_500_000)).toBe('-2.5');
    // Past 2^53 as a string: still exact.
    expect(microUsdToDecimal('123456789012345678901')).toBe('123456789012345.678901');
  });

  it('formats by locale, keeping every micro digit and at least cents', () => {
    expect(formatMoney(2_500_000, 'en-US')).toBe('$2.50');
    expect(formatMoney(571, 'en-US')).toBe('$0.000571');
    expect(formatMoney(1_234_567_890_123, 'en-US')).toBe('$1,234,567.890123');
    expect(formatMoney(3_000_000, 'de-DE')).toBe('3,00\u00a0$');
    // 0.1 + 0.2 in micro-USD: no float artefact.
    expect(formatMoney(100_000 + 200_000, 'en-US')).toBe('$0.30');
  });

  it('reads typed USD amounts into micro-USD without floats', () => {
    expect(parseUsd('25')).toBe(25_000_000);
    expect(parseUsd('0.1')).toBe(100_000);
    expect(parseUsd('2,5')).toBe(2_500_000);
    expect(parseUsd('3.141592')).toBe(3_141_592);
    expect(parseUsd('1.0000001')).toBeUndefined();
    expect(parseUsd('-1')).toBeUndefined();
  });

  it('lists the days of a report range', () => {
    expect(daysBetween('2026-11-29', '2026-12-02T00:00:00.000Z')).toEqual(['2026-11-29', '2026-11-30', '2026-12-01']);
  });
});

describe('usableLocale', () => {
  it('keeps a valid tag, repairs what a POSIX environment reports, and falls back to en-US', () => {
    expect(usableLocale('de-DE', 'en-GB')).toBe('de-DE');
    expect(usableLocale(undefined, 'en-US@posix')).toBe('en-US');
    expect(usableLocale(null, 'fr_FR')).toBe('fr-FR');
    expect(usableLocale('', '!!')).toBe('en-US');
  });
});
