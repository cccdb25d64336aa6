import { randomBytes } from 'node:crypto';
import type { GatewayServices } from '../gateway/services.js';

/**
 * Short-lived, single-use server-side state in Redis (a passkey ceremony's challenge, an OpenID
 * Connect state with its PKCE verifier and nonce, a pending two-step sign-in): the client holds
 * only a random id, and whatever it names can be taken once.
 */
export class Tickets<T> {
  constructor(
    private readonly services: GatewayServices,
    private readonly kind: string,
    readonly ttlMs: number,
  ) {}

  async issue(value: T): Promise<{ id: string; expiresAt: Date }> {
    const id = randomBytes(24).toString('base64url');
    await this.services.redis.set(
      this.services.redisKeys.consoleTicket(this.kind, id),
      JSON.stringify(value),
      'PX',
      this.ttlMs,
    );
    return { id, expiresAt: new Date(Date.now() + this.ttlMs) };
  }

  /** The value, removed: a second take of the same id finds nothing. */
  async take(id: string): Promise<T | undefined> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return undefined;
    const raw = await this.services.redis.getdel(this.services.redisKeys.consoleTicket(this.kind, id));
    return raw === null ? undefined : (JSON.parse(raw) as T);
  }

  /** The value, left in place (for a ticket that survives a wrong answer). */
  async peek(id: string): Promise<T | undefined> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return undefined;
    const raw = await this.services.redis.get(this.services.redisKeys.consoleTicket(this.kind, id));
    return raw === null ? undefined : (JSON.parse(raw) as T);
  }

  async drop(id: string): Promise<void> {
    await this.services.redis.del(this.services.redisKeys.consoleTicket(this.kind, id));
  }
}
