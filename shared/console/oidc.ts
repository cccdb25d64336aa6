import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import { GatewayError, notFound } from '../errors.js';
import type { GatewayServices } from '../gateway/services.js';
import { hashSecret } from '../keys/secret.js';
import { sameSecret } from '../same-secret.js';
import type { OidcProviderConfig } from './config.js';
import { Tickets } from './tickets.js';

const STATE_MS = 10 * 60 * 1000;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/**
 * The `error` values of RFC 6749 §4.1.2.1 and OpenID Connect Core §3.1.2.6: the only provider
 * words the console is shown. Anything else, and `error_description` always, is the attacker's
 * to write (any link can carry them) and is only logged.
 */
const PROVIDER_ERRORS = new Set([
  'invalid_request',
  'unauthorized_client',
  'access_denied',
  'unsupported_response_type',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
  'interaction_required',
  'login_required',
  'account_selection_required',
  'consent_required',
  'invalid_request_uri',
  'invalid_request_object',
  'request_not_supported',
  'request_uri_not_supported',
  'registration_not_supported',
]);

export type OidcPurpose = 'sign_in' | 'link';

interface AuthState {
  provider: string;
  purpose: OidcPurpose;
  /** The user linking the provider (purpose `link`). */
  userId?: string;
  redirectUri: string;
  verifier: string;
  nonce: string;
  /** Hash of the browser's binding cookie: only the browser that started the flow may finish it. */
  binding: string;
  /**
   * A console on another site than the API (bearer tokens, no cookie there): the S256 challenge of
   * a verifier that page keeps, redeemed with the sign-in's handoff ticket (api/console/auth/oauth-handoff.ts).
   */
  handoff?: string;
}

/** The browser that came back from the provider: its binding cookie and its console session's user. */
export interface ReturningBrowser {
  binding: string | undefined;
  userId: string | undefined;
}

const bindingHash = (binding: string) => hashSecret(binding).toString('base64url');

/** What the provider vouched for, after the code exchange and the ID token's checks. */
export interface ProviderIdentity {
  provider: string;
  purpose: OidcPurpose;
  userId: string | undefined;
  /** The S256 challenge of a cross-site console's sign-in (AuthState.handoff). */
  handoff: string | undefined;
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
}

export const oauthFailed = (message: string) => new GatewayError('oauth_failed', 400, message);

/**
 * Generic OpenID Connect sign-in providers (openid-client): discovery (retried on the next use after
 * a failure), authorization-code flow with PKCE (S256), `state` and `nonce` kept server-side as a
 * single-use ticket bound to the starting browser, the ID token's signature, issuer, audience,
 * expiry and nonce checked.
 */
export class OidcProviders {
  private readonly states: Tickets<AuthState>;
  private readonly discovered = new Map<string, Promise<client.Configuration>>();

  constructor(private readonly services: GatewayServices) {
    this.states = new Tickets(services, 'oidc', STATE_MS);
  }

  list(): OidcProviderConfig[] {
    return this.services.config.console.oidc;
  }

  private provider(name: string): OidcProviderConfig {
    const found = this.list().find((p) => p.name === name);
    if (!found) throw notFound(`no sign-in provider named '${name}'`);
    return found;
  }

  private configuration(p: OidcProviderConfig): Promise<client.Configuration> {
    let pending = this.discovered.get(p.name);
    if (!pending) {
      const issuer = new URL(p.issuer);
      // Plain HTTP only for a provider on this machine (development, tests).
      const execute =
        issuer.protocol === 'http:' && LOOPBACK.has(issuer.hostname) ? [client.allowInsecureRequests] : [];
      pending = client.discovery(issuer, p.clientId, p.clientSecret, undefined, { execute });
      pending.catch(() => this.discovered.delete(p.name));
      this.discovered.set(p.name, pending);
    }
    return pending.catch((err: unknown) => {
      this.services.log.warn({ err, provider: p.name }, 'OpenID Connect discovery failed');
      throw new GatewayError(
        'upstream_unavailable',
        503,
        `the sign-in provider '${p.name}' cannot be reached; try again shortly`,
        { retryAfter: 5 },
      );
    });
  }

  /**
   * The provider's authorization URL for a sign-in or a link, when its state expires, and the
   * secret the starting browser must hold (as a cookie) to finish it.
   */
  async authorizationUrl(
    name: string,
    purpose: OidcPurpose,
    redirectUri: string,
    userId?: string,
    handoff?: string,
  ): Promise<{ url: string; expiresAt: Date; binding: string }> {
    const p = this.provider(name);
    const config = await this.configuration(p);
    const verifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const binding = randomBytes(32).toString('base64url');
    const state = await this.states.issue({
      provider: p.name,
      purpose,
      userId,
      redirectUri,
      verifier,
      nonce,
      binding: bindingHash(binding),
      ...(handoff && { handoff }),
    });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: p.scopes,
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: state.id,
      nonce,
    });
    return { url: url.href, expiresAt: state.expiresAt, binding };
  }

  /**
   * Completes the redirect back from the provider (its query string) in `browser` → the identity it
   * vouched for. Every refusal says only our own words.
   */
  async complete(name: string, query: URLSearchParams, browser: ReturningBrowser): Promise<ProviderIdentity> {
    const p = this.provider(name);
    const state = await this.states.take(query.get('state') ?? '');
    if (!state || state.provider !== p.name)
      throw oauthFailed('the sign-in state is unknown, used or expired: start again');
    // A state (and its code) carried to another browser is worth nothing there: no login CSRF, and
    // nobody's provider account is linked to an account they did not start the link from. A
    // cross-site console's link (handoff) could set and send no cookie of this origin: nothing is
    // linked here, the verifier of the tab that started it finishes it (oauth-handoff.ts).
    const handedOver = state.purpose === 'link' && state.handoff !== undefined;
    if (!handedOver && (!browser.binding || !sameSecret(bindingHash(browser.binding), state.binding))) {
      throw oauthFailed('this sign-in was started in another browser, or took too long: start again from the console');
    }
    if (!handedOver && state.purpose === 'link' && browser.userId !== state.userId) {
      throw oauthFailed(
        'the link was started from another console session: sign in to the console in this browser and start again',
      );
    }
    const error = query.get('error');
    if (error) {
      this.services.log.info(
        { provider: p.name, error, description: query.get('error_description') },
        'the sign-in provider refused',
      );
      throw oauthFailed(`the provider refused the sign-in (${PROVIDER_ERRORS.has(error) ? error : 'unknown reason'})`);
    }
    const config = await this.configuration(p);
    const current = new URL(state.redirectUri);
    current.search = query.toString();
    let claims: Record<string, unknown> | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: state.verifier,
        expectedState: query.get('state') ?? '',
        expectedNonce: state.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
      // Many providers keep scope claims (email) out of the ID token: ask the UserInfo endpoint,
      // which must answer for the same subject.
      if (claims?.sub && claims.email === undefined && tokens.access_token) {
        claims = { ...(await client.fetchUserInfo(config, tokens.access_token, String(claims.sub))), ...claims };
      }
    } catch (err) {
      this.services.log.warn({ err, provider: p.name }, 'OpenID Connect code exchange failed');
      // The exchange's error can quote the provider's error_description: it stays in the log.
      throw oauthFailed(`the sign-in with '${p.name}' could not be completed: start again`);
    }
    if (typeof claims?.sub !== 'string' || !claims.sub) throw oauthFailed('the provider sent no ID token subject');
    return {
      provider: p.name,
      purpose: state.purpose,
      userId: state.userId,
      handoff: state.handoff,
      subject: claims.sub,
      email: typeof claims.email === 'string' ? claims.email : undefined,
      emailVerified: claims.email_verified === true,
    };
  }
}
