import { unwrap, type Api } from './client';
import type { User } from './models';

// Only for the trip to the provider and back (a full page load): taken at once on return.
const KEY = 'oauth_handoff_verifier';

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/**
 * A provider sign-in from a console on another site than the API (bearer tokens): the provider
 * returns to the API's origin, whose cookie this site never sends, so the sign-in is handed over
 * with a single-use ticket that only this page's verifier redeems (PKCE's idea). The verifier
 * stays in this tab's sessionStorage for the round trip only; it is no credential by itself.
 */
export async function startHandoff(authorizeUrl: string): Promise<void> {
  location.assign(`${authorizeUrl}?handoff=${await newHandoff()}`);
}

/** A fresh verifier, kept for the round trip → its S256 challenge (for a sign-in's URL or a link's body). */
export async function newHandoff(): Promise<string> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  sessionStorage.setItem(KEY, verifier);
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

/**
 * Back from the provider with a ticket (a sign-in, or a link: made on redemption): redeemed with
 * the verifier, answered as any sign-in → the user.
 */
export async function finishHandoff(api: Api, ticket: string): Promise<User> {
  const verifier = sessionStorage.getItem(KEY);
  sessionStorage.removeItem(KEY);
  // Not started in this tab (or a link someone else made): nothing here can redeem it.
  if (!verifier) throw new Error('This sign-in was started in another tab or browser: start it again from here.');
  const session = await unwrap<{ user: User }>(api.POST('/api/v1/auth/oauth/handoff', { body: { ticket, verifier } }));
  return session.user;
}
