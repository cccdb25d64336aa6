import { confirmation } from '../auth/fields.js';
import { logout } from '../auth/logout.js';
import { me } from '../auth/me.js';
import { authorizeQuerySchema, handoffSchema, linkSchema, redeemHandoff } from '../auth/oauth-handoff.js';
import {
  authorize,
  callback,
  linkProvider,
  listIdentities,
  listProviders,
  providerTwoStep,
  providerTwoStepSchema,
  unlinkIdentity,
} from '../auth/oauth.js';
import { passkeySignIn, passkeySignInOptions, passkeySignInSchema, removePasskey } from '../auth/passkeys.js';
import { patchProfile, profileSchema } from '../auth/profile.js';
import { sensitiveCode, sensitiveCodeSchema } from '../auth/sensitive-code.js';
import type { Route } from '../../routes/route.js';
import {
  IDENTITIES_RESPONSE,
  LOGOUT_RESPONSE,
  ME_RESPONSE,
  PASSKEY_LOGIN_OPTIONS_RESPONSE,
  PROVIDERS_RESPONSE,
  PROVIDER_LINK_RESPONSE,
  PROVIDER_RETURN_RESPONSE,
} from '../../routes/console-examples.js';
import { CODE_SENT_RESPONSE, PROFILE_EXAMPLES, SESSION_RESPONSE } from '../../routes/examples.js';
/** Passkey and provider sign-in, linked identities, and the signed-in user. */
export const identityRoutes: Route[] = [
  {
    method: 'post',
    path: '/api/v1/auth/passkeys/login/options',
    tag: 'Console: account',
    summary: 'Start a passkey sign-in → `{ceremony_id, expires_at, options}` for navigator.credentials.get',
    auth: 'none',
    examples: { response: PASSKEY_LOGIN_OPTIONS_RESPONSE },
    handler: passkeySignInOptions,
  },
  {
    method: 'post',
    path: '/api/v1/auth/passkeys/login',
    tag: 'Console: account',
    summary: 'Sign in with a passkey assertion (no two-step code needed)',
    auth: 'none',
    body: passkeySignInSchema,
    examples: { response: SESSION_RESPONSE },
    responses: { 401: 'passkey_invalid' },
    handler: passkeySignIn,
  },
  {
    method: 'post',
    path: '/api/v1/auth/passkeys/:id/remove',
    tag: 'Console: security',
    summary: 'Remove a passkey (password and a `remove_passkey` code)',
    auth: 'session',
    body: confirmation,
    responses: { 204: 'removed', 404: 'not yours', 409: 'last_sign_in_method' },
    handler: removePasskey,
  },
  {
    method: 'get',
    path: '/api/v1/auth/oauth/providers',
    tag: 'Console: account',
    summary: 'The enabled sign-in providers `[{name, display_name}]`',
    auth: 'none',
    examples: { response: PROVIDERS_RESPONSE },
    handler: listProviders,
  },
  {
    method: 'get',
    path: '/api/v1/auth/oauth/:provider/authorize',
    tag: 'Console: account',
    summary:
      "Redirect to the provider for a sign-in or sign-up (PKCE, state and nonce), setting the browser's binding cookie; `handoff` (a console on another site): the S256 challenge of its verifier, and the return carries a `ticket` for `POST /api/v1/auth/oauth/handoff` instead of a session cookie",
    auth: 'none',
    query: authorizeQuerySchema,
    responses: { 302: 'to the provider' },
    handler: authorize,
  },
  {
    method: 'get',
    path: '/api/v1/auth/oauth/:provider/callback',
    tag: 'Console: account',
    summary:
      "The provider's return, only in the browser that started it (its binding cookie; a link also in the same console session): signs in, signs up or links, then redirects to the console's `/oauth/callback?provider&result=signed_in|mfa_required|linked|error`",
    auth: 'none',
    responses: { 302: 'to the console', 200: 'with `Accept: application/json`: `{provider, result}`' },
    examples: { response: PROVIDER_RETURN_RESPONSE },
    handler: callback,
  },
  {
    method: 'post',
    path: '/api/v1/auth/oauth/handoff',
    tag: 'Console: account',
    summary:
      "Finish a provider sign-in or link started with `handoff` (a console on another site): the callback's single-use `ticket` (1 minute) and the verifier whose challenge started it; a link is made, then signed in",
    auth: 'none',
    body: handoffSchema,
    examples: {
      request: { ticket: 'Xb1Qm9…from the return URL', verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk' },
      response: SESSION_RESPONSE,
    },
    responses: { 400: 'oauth_failed' },
    handler: redeemHandoff,
  },
  {
    method: 'post',
    path: '/api/v1/auth/oauth/2fa',
    tag: 'Console: account',
    summary:
      'Finish a provider sign-in held by two-step verification: the `ticket` from the callback and the e-mailed code',
    auth: 'none',
    body: providerTwoStepSchema,
    examples: { response: SESSION_RESPONSE },
    responses: { 401: 'mfa_invalid' },
    handler: providerTwoStep,
  },
  {
    method: 'post',
    path: '/api/v1/auth/oauth/:provider/link',
    tag: 'Console: security',
    summary:
      'Start linking a provider (password and a `link_provider` code) → `{url, expires_at}`, to open in this browser (its binding cookie is set); `handoff` (a console on another site): the return carries a `ticket` for `POST /api/v1/auth/oauth/handoff` instead',
    auth: 'session',
    body: linkSchema,
    responses: { 409: 'provider_already_linked' },
    examples: { response: PROVIDER_LINK_RESPONSE },
    handler: linkProvider,
  },
  {
    method: 'get',
    path: '/api/v1/auth/identities',
    tag: 'Console: security',
    summary: 'The providers linked to you',
    auth: 'session',
    examples: { response: IDENTITIES_RESPONSE },
    handler: listIdentities,
  },
  {
    method: 'post',
    path: '/api/v1/auth/identities/:provider/unlink',
    tag: 'Console: security',
    summary: 'Unlink a provider (password and an `unlink_provider` code)',
    auth: 'session',
    body: confirmation,
    responses: { 204: 'unlinked', 404: 'not linked', 409: 'last_sign_in_method' },
    handler: unlinkIdentity,
  },
  {
    method: 'post',
    path: '/api/v1/auth/logout',
    tag: 'Console: account',
    summary: 'End the session',
    auth: 'session',
    examples: { response: LOGOUT_RESPONSE },
    handler: logout,
  },
  {
    method: 'get',
    path: '/api/v1/auth/me',
    tag: 'Console: account',
    summary: 'The signed-in user',
    auth: 'session',
    examples: { response: ME_RESPONSE },
    handler: () => me,
  },
  {
    method: 'patch',
    path: '/api/v1/auth/me',
    tag: 'Console: account',
    summary:
      'The profile: `nickname` (1-64 characters), `locale` (a BCP 47 tag, canonicalised), `region` (an assigned ISO 3166-1 alpha-2 code); omitted fields unchanged → the user',
    auth: 'session',
    body: profileSchema,
    examples: PROFILE_EXAMPLES,
    handler: patchProfile,
  },
  {
    method: 'post',
    path: '/api/v1/auth/sensitive-code',
    tag: 'Console: account',
    summary:
      'E-mails a one-time code for a sensitive action (8 digits, 10 minutes, one use, that action only); again within 60 s → 429 `verification_cooldown`',
    auth: 'session',
    body: sensitiveCodeSchema,
    examples: { response: CODE_SENT_RESPONSE },
    responses: {
      202: '{expires_at, cooldown_seconds}',
      429: 'verification_cooldown, with Retry-After and X-RateLimit-*',
    },
    handler: sensitiveCode,
  },
];
