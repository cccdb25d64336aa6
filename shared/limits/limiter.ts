import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { GatewayError, serviceUnavailable } from '../errors.js';
import type { RedisKeys } from '../redis/keys.js';

/** A named limit: at most `limit` events per `windowMs` for one subject (an IP, a key, an account). */
export interface Policy {
  name: string;
  limit: number;
  windowMs: number;
  /** The error a refusal answers with; its Retry-After is added. */
  refuse: (retryAfter: number) => GatewayError;
}

/**
 * The limiter for everything that is not a call's own layers: key lookups per source IP and per
 * key, code-sending cooldowns. Several policies are decided together in one round trip; when one
 * refuses, none is consumed.
 */
export class Limiter {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly clock: Clock,
  ) {}

  async consume(checks: { policy: Policy; subject: string }[]): Promise<void> {
    const rules = checks.map((c) => ({
      k: this.keys.policy(c.policy.name, c.subject),
      limit: c.policy.limit,
      windowMs: c.policy.windowMs,
    }));
    let reply: { ok?: 1; fail?: 1; index?: number; retry?: number };
    try {
      reply = JSON.parse(
        String(await this.redis.gwConsume(JSON.stringify({ now: this.clock.now(), rules }))),
      ) as typeof reply;
    } catch {
      throw serviceUnavailable();
    }
    if (reply.ok) return;
    const failed = checks[(reply.index ?? 1) - 1]!;
    throw failed.policy.refuse(reply.retry ?? 1);
  }
}

export const rateLimited = (message: string) => (retryAfter: number) =>
  new GatewayError('rate_limit_exceeded', 429, message, { retryAfter });
