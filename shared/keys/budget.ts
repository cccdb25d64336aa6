import { z } from 'zod';
import { startOfUtcDay, startOfUtcIsoWeek, startOfUtcMonth, utcPeriods } from '../clock.js';

import type { BudgetPeriod } from '../db/schema.js';

export type { BudgetPeriod };
export const BUDGET_PERIODS = ['day', 'week', 'month', 'total'] as const satisfies readonly BudgetPeriod[];
/** How messages name a budget: "this key's weekly budget". */
export const BUDGET_ADJECTIVE: Record<BudgetPeriod, string> = {
  day: 'daily',
  week: 'weekly',
  month: 'monthly',
  total: 'total',
};

/** A key's hard spending limit over a UTC period (docs/reference/limits.md#budgets). */
export interface KeyBudget {
  /** Micro-USD the period's settled charges and calls in flight may reach, never pass. */
  readonly limit: number;
  readonly period: BudgetPeriod;
  /** Percent of the limit (1-100) that, once spent, mails the owner once per period; null: no mail. */
  readonly softPercent: number | null;
}

/** The budget as the console API and the CLI set and show it; null: none. */
export type BudgetSetting = {
  limit_micro_usd: number;
  period: BudgetPeriod;
  soft_threshold_percent?: number | null;
} | null;

/**
 * A percent rather than an amount: a threshold that follows the limit when the limit changes
 * cannot be left above it by mistake.
 */
export const budgetSchema = z
  .strictObject({
    // 10^15 micro-USD is a billion dollars, as for the caps.
    limit_micro_usd: z.number().int('must be a whole number').min(0, 'must not be negative').max(1e15, 'is too large'),
    period: z.enum(BUDGET_PERIODS),
    soft_threshold_percent: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be from 1 to 100')
      .max(100, 'must be from 1 to 100')
      .nullable()
      .optional(),
  })
  .nullable();

interface BudgetColumns {
  budget_micro_usd: number | null;
  budget_period: BudgetPeriod | null;
  budget_soft_percent: number | null;
}

export function budgetColumns(b: BudgetSetting): BudgetColumns {
  if (b === null) return { budget_micro_usd: null, budget_period: null, budget_soft_percent: null };
  return {
    budget_micro_usd: b.limit_micro_usd,
    budget_period: b.period,
    budget_soft_percent: b.soft_threshold_percent ?? null,
  };
}

export function budgetOfRow(row: BudgetColumns): KeyBudget | null {
  if (row.budget_micro_usd === null || row.budget_period === null) return null;
  return { limit: row.budget_micro_usd, period: row.budget_period, softPercent: row.budget_soft_percent };
}

/** The budget as a key's view shows it: every field present. */
export type BudgetView = {
  limit_micro_usd: number;
  period: BudgetPeriod;
  soft_threshold_percent: number | null;
} | null;

export function budgetView(row: BudgetColumns): BudgetView {
  const b = budgetOfRow(row);
  return b && { limit_micro_usd: b.limit, period: b.period, soft_threshold_percent: b.softPercent };
}

/** The soft threshold in micro-USD (the percent of the limit, rounded up), or null when none is set. */
export function softThreshold(b: KeyBudget): number | null {
  if (b.softPercent === null) return null;
  // In two parts, so that no product passes 2^53 (limits go up to 10^15): exact, as Postgres's numeric.
  const hundreds = Math.floor(b.limit / 100);
  return hundreds * b.softPercent + Math.ceil(((b.limit - hundreds * 100) * b.softPercent) / 100);
}

export interface BudgetWindow {
  /** Names the period for the once-per-period notice: `total`, `day-20310115`, `week-2031W03`, `month-203101`. */
  label: string;
  /** null for `total`, which never starts again. */
  start: Date | null;
  end: Date | null;
}

/** The UTC period `now` falls in: days from 00:00, ISO weeks from Monday 00:00, months from the 1st. */
export function budgetWindow(period: BudgetPeriod, now: number): BudgetWindow {
  const labels = utcPeriods(now);
  switch (period) {
    case 'total':
      return { label: 'total', start: null, end: null };
    case 'day': {
      const start = startOfUtcDay(now);
      return { label: `day-${labels.day}`, start, end: new Date(start.getTime() + 86_400_000) };
    }
    case 'week': {
      const start = startOfUtcIsoWeek(now);
      return { label: `week-${labels.week}`, start, end: new Date(start.getTime() + 7 * 86_400_000) };
    }
    case 'month': {
      const start = startOfUtcMonth(now);
      return {
        label: `month-${labels.month}`,
        start,
        end: new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1)),
      };
    }
  }
}

/** What the key spent in its budget's current period, from its spend counters. */
export function spentInPeriod(
  period: BudgetPeriod,
  spend: { total: number; daily: number; weekly: number; monthly: number },
): number {
  return { total: spend.total, day: spend.daily, week: spend.weekly, month: spend.monthly }[period];
}
