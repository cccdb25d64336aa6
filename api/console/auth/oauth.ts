import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { assertProviderFree, linkIdentity, userForSignIn } from '../../../shared/console/identities.js';
import { OidcProviders } from '../../../shared/console/oidc.js';
import { confirmSensitive } from '../../../shared/console/sensitive.js';
import { SignInGuard } from '../../../shared/console/sign-in-guard.js';
import { assertAnotherWayIn } from '../../../shared/console/sign-in-methods.js';
import { Tickets } from '../../../shared/console/tickets.js';
import { checkSecondStep } from '../../../shared/console/two-step.js';
import { findUserById } from '../../../shared/db/users.js';
import { badRequest, GatewayError, notFound } from '../../../shared/errors.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { baseUrl } from '../../http/base-url.js';
import { readConsoleBody } from '../body.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';
import { beginSession, openSession } from './begin-session.js';
import { codeField, confirmation } from './fields.js';
import { returningBrowser, setBindingCookie } from './oauth-binding.js';
import { HANDOFF_CHALLENGE, handoffs, linkHandoffs, linkSchema } from './oauth-handoff.js';

export const providerTwoStepSchema = z.strictObject({ ticket: z.string().min(1).max(64), code: codeField });

/** A provider sign-in waiting for its e-mailed code (two-step verification on). */
interface PendingSignIn {
  userId: string;
}

const pendingSignIns = (services: GatewayServices) =>
  new Tickets<PendingSignIn>(services, 'mfa', services.config.console.codes.ttlMs);

const callbackUri = (services: GatewayServices, ctx: Context, provider: string) =>
  `${baseUrl(services, ctx)}/api/v1/auth/oauth/${encodeURIComponent(provider)}/callback`;

/** GET /api/v1/auth/oauth/providers → the enabled providers `[{name, display_name}]`. */
export function listProviders(services: GatewayServices): Middleware {
  return async (ctx) => {
    sendData(
      ctx,
      services.config.console.oidc.map((p) => ({ name: p.name, display_name: p.displayName })),
    );
  };
}

/**
 * GET /api/v1/auth/oauth/{provider}/authorize → 302 to the provider, for a sign-in or sign-up, with
 * this browser's binding cookie. `?handoff=<S256 challenge>`: a console on another site, which
 * redeems the sign-in with a ticket instead of a cookie (./oauth-handoff.ts).
 */
export function authorize(services: GatewayServices): Middleware {
  const providers = new OidcProviders(services);
  const guard = new SignInGuard(services);
  return async (ctx) => {
    const provider = String(ctx.params.provider);
    const handoff = ctx.query.handoff;
    if (handoff !== undefined && (typeof handoff !== 'string' || !HANDOFF_CHALLENGE.test(handoff)))
      throw badRequest('handoff: must be the base64url SHA-256 of a code verifier (43 characters)', 'handoff');
    await guard.throttleIp(ctx.ip);
    const returnTo = callbackUri(services, ctx, provider);
    const { url, expiresAt, binding } = await providers.authorizationUrl(
      provider,
      'sign_in',
      returnTo,
      undefined,
      handoff,
    );
    setBindingCookie(services, ctx, returnTo, binding, expiresAt);
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(url);
  };
}

/**
 * GET /api/v1/auth/oauth/{provider}/callback: where the provider sends the browser back. Only the
 * browser that started the flow (its binding cookie) can finish it, and a link only in the console
 * session that started it. Completes a sign-in (session cookie set; two-step rules apply), a sign-up
 * or a link, then redirects to the console's
 * `/oauth/callback?provider=…&result=signed_in|mfa_required|linked|error` (with `ticket` for
 * `mfa_required`, `error_code` and `message` for `error`: always our own words, never the query's).
 * A client that asks for JSON (`Accept: application/json`) gets `{data: {provider, result}}` or the
 * error itself instead of the redirect (e.g. 409 `identity_already_linked`), two-step included: 401
 * `mfa_required` as the spec's error table says, with the ticket to finish with in `details`.
 */
export function callback(services: GatewayServices): Middleware {
  const providers = new OidcProviders(services);
  const pending = pendingSignIns(services);
  return async (ctx) => {
    const name = String(ctx.params.provider);
    // The path is anyone's to write: an unknown name is not echoed back to the console.
    const provider = providers.list().some((p) => p.name === name) ? name : undefined;
    const wantsJson = ctx.get('accept').includes('application/json');
    ctx.set('Cache-Control', 'no-store');
    let outcome: { result: string; ticket?: string };
    try {
      if (!provider) throw notFound('no such sign-in provider');
      outcome = await completeProviderReturn(services, ctx, providers, pending, provider);
    } catch (err) {
      if (wantsJson) throw err;
      if (!(err instanceof GatewayError) || err.status >= 500)
        services.log.warn({ err, provider }, 'provider callback failed');
      const known = err instanceof GatewayError;
      ctx.redirect(
        consoleReturn(services, ctx, {
          provider,
          result: 'error',
          error_code: known ? err.code : 'internal_error',
          message: known ? err.message : 'the sign-in could not be completed',
        }),
      );
      return;
    }
    if (wantsJson && outcome.result === 'mfa_required') throw heldForCode(provider!, outcome.ticket!);
    if (wantsJson) sendData(ctx, { provider, ...outcome });
    else ctx.redirect(consoleReturn(services, ctx, { provider, ...outcome }));
  };
}

async function completeProviderReturn(
  services: GatewayServices,
  ctx: Context,
  providers: OidcProviders,
  pending: Tickets<PendingSignIn>,
  provider: string,
) {
  const browser = await returningBrowser(services, ctx, callbackUri(services, ctx, provider));
  const identity = await providers.complete(provider, new URLSearchParams(ctx.querystring), browser);
  if (identity.purpose === 'link') {
    if (identity.handoff) {
      const held = { userId: identity.userId!, challenge: identity.handoff, identity };
      return { result: 'link_pending', ticket: (await linkHandoffs(services).issue(held)).id };
    }
    await linkIdentity(services.db, identity.userId!, identity);
    return { result: 'linked' };
  }
  const user = await userForSignIn(services.db, identity);
  try {
    await checkSecondStep(services, user, undefined);
  } catch (err) {
    if (!(err instanceof GatewayError && err.code === 'mfa_required')) throw err;
    return { result: 'mfa_required', ticket: (await pending.issue({ userId: user.id })).id };
  }
  // A console on another site gets no cookie it could use: a ticket its verifier redeems instead.
  if (identity.handoff)
    return {
      result: 'signed_in',
      ticket: (await handoffs(services).issue({ userId: user.id, challenge: identity.handoff })).id,
    };
  await openSession(services, ctx, user);
  return { result: 'signed_in' };
}

const heldForCode = (provider: string, ticket: string) =>
  new GatewayError(
    'mfa_required',
    401,
    'two-step verification is on: the sign-in code was e-mailed; finish with POST /api/v1/auth/oauth/2fa {ticket, code}',
    { param: 'code', details: { provider, ticket } },
  );

/** The console page the browser returns to: CONSOLE_ORIGIN's `/oauth/callback`, else the gateway's own. */
function consoleReturn(services: GatewayServices, ctx: Context, query: Record<string, string | undefined>): string {
  const base = services.config.console.origin ?? baseUrl(services, ctx);
  if (!URL.canParse(base)) throw badRequest('the Host header is not a valid host');
  const target = new URL('/oauth/callback', base);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) target.searchParams.set(k, v);
  return target.href;
}

/** POST /api/v1/auth/oauth/2fa `{ticket, code}`: finishes a provider sign-in held by two-step verification → a session. */
export function providerTwoStep(services: GatewayServices): Middleware {
  const pending = pendingSignIns(services);
  const guard = new SignInGuard(services);
  return async (ctx) => {
    const body = await readConsoleBody(ctx, providerTwoStepSchema);
    await guard.throttleIp(ctx.ip);
    const held = await pending.peek(body.ticket);
    const user = held && (await findUserById(services.db, held.userId));
    if (!user || user.closed_at)
      throw new GatewayError(
        'mfa_invalid',
        401,
        'the sign-in ticket is unknown or expired: sign in with the provider again',
        { param: 'ticket' },
      );
    await guard.guard(user.email, () => checkSecondStep(services, user, body.code));
    await pending.drop(body.ticket);
    await beginSession(services, ctx, user);
  };
}

/**
 * POST /api/v1/auth/oauth/{provider}/link `{password, code}` (a `link_provider` code) → `{url, expires_at}`,
 * with this browser's binding cookie: the link finishes only here, in this console session.
 */
export function linkProvider(services: GatewayServices): Middleware {
  const providers = new OidcProviders(services);
  return async (ctx) => {
    const provider = String(ctx.params.provider);
    const body = await readConsoleBody(ctx, linkSchema);
    const { user } = signedIn(ctx);
    if (!providers.list().some((p) => p.name === provider)) throw notFound(`no sign-in provider named '${provider}'`);
    await assertProviderFree(services.db, user.id, provider);
    await confirmSensitive(services, user, 'link_provider', body);
    const returnTo = callbackUri(services, ctx, provider);
    const { url, expiresAt, binding } = await providers.authorizationUrl(
      provider,
      'link',
      returnTo,
      user.id,
      body.handoff,
    );
    setBindingCookie(services, ctx, returnTo, binding, expiresAt);
    sendData(ctx, { url, expires_at: expiresAt.toISOString() });
  };
}

/** GET /api/v1/auth/identities → the providers linked to the signed-in user. */
export function listIdentities(services: GatewayServices): Middleware {
  return async (ctx) => {
    const rows = await services.db
      .selectFrom('user_identities')
      .select(['provider', 'email', 'created_at'])
      .where('user_id', '=', signedIn(ctx).user.id)
      .orderBy('created_at')
      .execute();
    sendData(
      ctx,
      rows.map((r) => ({ provider: r.provider, email: r.email, linked_at: r.created_at.toISOString() })),
    );
  };
}

/** POST /api/v1/auth/identities/{provider}/unlink `{password, code}` (an `unlink_provider` code) → 204. */
export function unlinkIdentity(services: GatewayServices): Middleware {
  return async (ctx) => {
    const provider = String(ctx.params.provider);
    const body = await readConsoleBody(ctx, confirmation);
    const { user } = signedIn(ctx);
    const linked = await services.db
      .selectFrom('user_identities')
      .select('id')
      .where('user_id', '=', user.id)
      .where('provider', '=', provider)
      .executeTakeFirst();
    if (!linked) throw notFound(`no identity of '${provider}' is linked`);
    await assertAnotherWayIn(services.db, user, { provider });
    await confirmSensitive(services, user, 'unlink_provider', body);
    await services.db.deleteFrom('user_identities').where('id', '=', linked.id).execute();
    ctx.status = 204;
  };
}
