import { GatewayError } from '../errors.js';
import { BUDGET_ADJECTIVE, budgetWindow, type BudgetPeriod } from '../keys/budget.js';
import type { Dimension } from './layers.js';

// How the STEP script's admission answers read: rate-limit headers and refusals.

export interface Header {
  limit: number;
  remaining: number;
  reset: number;
}

export type AdmitRefusal =
  | { fail: 'balance'; balance: number; hdr: Partial<Record<Dimension, Header>> }
  | {
      fail: 'quota';
      period: 'total' | 'daily' | 'monthly';
      cap: number;
      left: number;
      hdr: Partial<Record<Dimension, Header>>;
    }
  | { fail: 'budget'; period: BudgetPeriod; limit: number; left: number; hdr: Partial<Record<Dimension, Header>> }
  | {
      fail: 'rate';
      layer: string;
      dim: Dimension;
      limit: number;
      retry: number;
      oversize: boolean;
      hdr: Partial<Record<Dimension, Header>>;
    }
  | { fail: 'concurrency'; layer: string; limit: number; hdr: Partial<Record<Dimension, Header>> };

const HEADER_NAMES: Record<Dimension, readonly [string, string, string]> = {
  requests: ['X-RateLimit-Limit-Requests', 'X-RateLimit-Remaining-Requests', 'X-RateLimit-Reset-Requests'],
  tokens: ['X-RateLimit-Limit-Tokens', 'X-RateLimit-Remaining-Tokens', 'X-RateLimit-Reset-Tokens'],
};

/** The tightest layer per dimension; a dimension no layer limits sends no headers. */
export function rateHeaders(hdr: Partial<Record<Dimension, Header>> | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [dim, h] of Object.entries(hdr ?? {}) as [Dimension, Header][]) {
    const [limit, remaining, reset] = HEADER_NAMES[dim];
    headers[limit] = String(h.limit);
    headers[remaining] = String(h.remaining);
    headers[reset] = String(h.reset);
  }
  return headers;
}

/** The headers of an admission's flat answer: `ok <requests> <tokens>`, each `limit,remaining,reset` or `-`. */
export function flatRateHeaders(reply: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const tokensAt = reply.indexOf(' ', 3);
  addFlat(headers, HEADER_NAMES.requests, reply.slice(3, tokensAt));
  addFlat(headers, HEADER_NAMES.tokens, reply.slice(tokensAt + 1));
  return headers;
}

function addFlat(headers: Record<string, string>, names: readonly [string, string, string], text: string): void {
  if (text === '-') return;
  const a = text.indexOf(',');
  const b = text.indexOf(',', a + 1);
  headers[names[0]] = text.slice(0, a);
  headers[names[1]] = text.slice(a + 1, b);
  headers[names[2]] = text.slice(b + 1);
}

export function refusal(reply: AdmitRefusal, now: number): GatewayError {
  const headers = rateHeaders(reply.hdr);
  switch (reply.fail) {
    case 'balance':
      return new GatewayError('insufficient_balance', 402, 'insufficient balance for the maximum cost of this call', {
        headers,
        available: Math.max(0, reply.balance),
      });
    case 'quota': {
      const retryAfter = reply.period === 'total' ? undefined : secondsToNextPeriod(now, reply.period);
      return new GatewayError(
        'quota_exceeded',
        429,
        `this key's ${reply.period} quota of ${reply.cap} micro-USD would be exceeded`,
        {
          headers,
          available: Math.max(0, reply.left),
          ...(retryAfter === undefined ? {} : { retryAfter }),
        },
      );
    }
    case 'budget':
      return new GatewayError('budget_exceeded', 402, budgetMessage(reply.period, reply.limit, now), {
        headers,
        available: Math.max(0, reply.left),
      });
    case 'rate':
      return new GatewayError(
        'rate_limit_exceeded',
        429,
        reply.oversize
          ? `this call needs more than the ${reply.layer} limit of ${reply.limit} ${reply.dim} per minute allows`
          : `rate limit exceeded: ${reply.layer} limit of ${reply.limit} ${reply.dim} per minute`,
        { retryAfter: reply.retry, headers },
      );
    case 'concurrency':
      return new GatewayError(
        'rate_limit_exceeded',
        429,
        `concurrency limit exceeded: ${reply.layer} limit of ${reply.limit} calls in flight`,
        {
          retryAfter: 1,
          headers,
        },
      );
  }
}

// A 402 carries no Retry-After (clients do not wait on one): the message says when the period starts again.
function budgetMessage(period: BudgetPeriod, limit: number, now: number): string {
  const { end } = budgetWindow(period, now);
  const next = end ? `; it starts again at ${end.toISOString()}` : '';
  return `this key's ${BUDGET_ADJECTIVE[period]} budget of ${limit} micro-USD would be exceeded${next}`;
}

function secondsToNextPeriod(now: number, period: 'daily' | 'monthly'): number {
  const d = new Date(now);
  const next =
    period === 'daily'
      ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
      : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now) / 1000));
}
