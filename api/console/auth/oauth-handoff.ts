import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { linkIdentity } from '../../../shared/console/identities.js';
import type { ProviderIdentity } from '../../../shared/console/oidc.js';
import { SignInGuard } from '../../../shared/console/sign-in-guard.js';
import { Tickets } from '../../../shared/console/tickets.js';
import { findUserById } from '../../../shared/db/users.js';
import { GatewayError } from '../../../shared/errors.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { sameSecret } from '../../../shared/same-secret.js';
import { readConsoleBody } from '../body.js';
import { beginSession } from './begin-session.js';
import { confirmation } from './fields.js';

/**
 * A provider sign-in for a console on another site than the API. The provider returns the
 * browser to the API's origin, whose session cookie that console's requests never carry; so the
 * console starts the sign-in with the S256 challenge of a verifier it keeps
 * (`authorize?handoff=<challenge>`), the callback answers a single-use ticket valid one minute
 * instead of a cookie, and the console redeems ticket and verifier together for the session. A
 * ticket read from the URL is worth nothing without the verifier, which never left the page.
 */
export interface Handoff {
  userId: string;
  challenge: string;
}

const HANDOFF_TTL_MS = 60_000;
/** base64url of a SHA-256: what `handoff` must look like. */
export const HANDOFF_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const handoffs = (services: GatewayServices) => new Tickets<Handoff>(services, 'oidc-handoff', HANDOFF_TTL_MS);

/** A link handed over: the identity the provider vouched for waits here, linked only on redemption. */
export interface LinkHandoff extends Handoff {
  identity: ProviderIdentity;
}

export const linkHandoffs = (services: GatewayServices) =>
  new Tickets<LinkHandoff>(services, 'oidc-link-handoff', HANDOFF_TTL_MS);

/** POST /api/v1/auth/oauth/{provider}/link: the sensitive action's confirmation, and `handoff` cross-site. */
export const linkSchema = confirmation.extend({
  handoff: z.string().regex(HANDOFF_CHALLENGE, 'must be the base64url SHA-256 of a code verifier').optional(),
});

/** The authorize route's query, for the reference (the route checks `handoff` itself). */
export const authorizeQuerySchema = z.object({
  handoff: z.string().regex(HANDOFF_CHALLENGE).optional(),
});

export const handoffSchema = z.strictObject({
  ticket: z.string().min(1).max(64),
  // RFC 7636's code verifier: 43-128 unreserved characters.
  verifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be 43-128 characters of A-Z a-z 0-9 . _ ~ -'),
});

const refused = () =>
  new GatewayError('oauth_failed', 400, 'the sign-in ticket is unknown, used, expired or not yours: start again', {
    param: 'ticket',
  });

/**
 * POST /api/v1/auth/oauth/handoff `{ticket, verifier}` → signed in (`{token, expires_at, user}`);
 * a link's ticket (`result=link_pending`) links the provider account first. The tab that started
 * a link lost its in-memory token on the way to the provider, and proved the account's password
 * and an e-mailed code to start it: it comes back signed in.
 */
export function redeemHandoff(services: GatewayServices): Middleware {
  const signIns = handoffs(services);
  const links = linkHandoffs(services);
  const guard = new SignInGuard(services);
  return async (ctx) => {
    const body = await readConsoleBody(ctx, handoffSchema);
    await guard.throttleIp(ctx.ip);
    // Taken whatever follows: a wrong verifier spends the ticket, so it cannot be guessed at.
    const held: Handoff | LinkHandoff | undefined =
      (await signIns.take(body.ticket)) ?? (await links.take(body.ticket));
    const challenge = createHash('sha256').update(body.verifier).digest('base64url');
    if (!held || !sameSecret(challenge, held.challenge)) throw refused();
    const user = await findUserById(services.db, held.userId);
    if (!user || user.closed_at) throw refused();
    if ('identity' in held) await linkIdentity(services.db, user.id, (held as LinkHandoff).identity);
    await beginSession(services, ctx, user);
  };
}
