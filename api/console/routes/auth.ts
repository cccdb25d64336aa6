import { closeAccountRoute } from '../auth/close-account.js';
import { confirmation } from '../auth/fields.js';
import { login, loginSchema, loginTwoStepSchema } from '../auth/login.js';
import {
  listPasskeys,
  passkeyOptionsSchema,
  passkeyRegisterSchema,
  passkeyRegistrationOptions,
  registerPasskey,
} from '../auth/passkeys.js';
import {
  changePassword,
  confirmPasswordReset,
  passwordChangeSchema,
  requestPasswordReset,
  resetConfirmSchema,
  resetRequestSchema,
} from '../auth/password.js';
import { confirmRegistration, register, registerConfirmSchema, registerSchema } from '../auth/register.js';
import { issueSessionToken } from '../auth/session-token.js';
import { listSessions, revokeSessionRoute } from '../auth/sessions.js';
import { mfaStatus, setTwoFactor, twoFactorSchema } from '../auth/two-factor.js';
import type { Route } from '../../routes/route.js';
import {
  MFA_STATUS_RESPONSE,
  PASSKEYS_RESPONSE,
  PASSKEY_REGISTERED_RESPONSE,
  PASSKEY_REGISTER_OPTIONS_RESPONSE,
  SESSIONS_RESPONSE,
  SESSION_TOKEN_RESPONSE,
  TWO_FACTOR_RESPONSE,
} from '../../routes/console-examples.js';
import { CODE_SENT_RESPONSE, SESSION_RESPONSE } from '../../routes/examples.js';
/** Sign-up, password sign-in and the security settings (two-step, password, sessions, passkeys, closing). */
export const authRoutes: Route[] = [
  {
    method: 'post',
    path: '/api/v1/auth/register',
    tag: 'Console: account',
    summary: 'Sign up: 202 for every e-mail (no account is revealed); a new address gets a `verify_email` code',
    auth: 'none',
    body: registerSchema,
    examples: { response: CODE_SENT_RESPONSE },
    responses: { 202: '{expires_at, cooldown_seconds}', 400: 'weak_password' },
    handler: register,
  },
  {
    method: 'post',
    path: '/api/v1/auth/register/confirm',
    tag: 'Console: account',
    summary:
      "Confirm the sign-up e-mail with its code and choose the password (the one given here is the account's) → signed in",
    auth: 'none',
    body: registerConfirmSchema,
    examples: { response: SESSION_RESPONSE },
    responses: { 201: '{token, expires_at, user}', 400: 'weak_password / verification_invalid' },
    handler: confirmRegistration,
  },
  {
    method: 'post',
    path: '/api/v1/auth/login',
    tag: 'Console: account',
    summary:
      'Sign in: the session cookie, and its token for bearer use to a client without `Origin` (a browser gets the cookie only; `X-Console-Session: bearer` gets a 15-minute bearer token only); with two-step verification on, 401 `mfa_required` (code e-mailed) unless `code` is sent',
    auth: 'none',
    body: loginSchema,
    examples: { response: SESSION_RESPONSE },
    responses: { 401: 'invalid_credentials / mfa_required / mfa_invalid', 429: 'account_locked / too_many_attempts' },
    handler: (services) => login(services),
  },
  {
    method: 'post',
    path: '/api/v1/auth/login/2fa',
    tag: 'Console: account',
    summary: 'The full sign-in that takes the e-mailed code',
    auth: 'none',
    body: loginTwoStepSchema,
    examples: { response: SESSION_RESPONSE },
    responses: { 401: 'invalid_credentials / mfa_invalid', 429: 'account_locked / too_many_attempts' },
    handler: (services) => login(services, true),
  },
  {
    method: 'get',
    path: '/api/v1/auth/mfa/status',
    tag: 'Console: security',
    summary: 'Whether two-step verification is on: `{enabled}`',
    auth: 'session',
    examples: { response: MFA_STATUS_RESPONSE },
    handler: () => mfaStatus,
  },
  {
    method: 'post',
    path: '/api/v1/auth/two-factor',
    tag: 'Console: security',
    summary: 'Turn two-step verification on or off (password and a `two_factor` code, consumed) → `{enabled}`',
    auth: 'session',
    body: twoFactorSchema,
    responses: { 403: 'invalid_password', 400: 'verification_invalid / verification_exhausted' },
    examples: { response: TWO_FACTOR_RESPONSE },
    handler: setTwoFactor,
  },
  {
    method: 'post',
    path: '/api/v1/auth/password/change',
    tag: 'Console: security',
    summary:
      'Change (or, without a password, set) the password with a `change_password` code; other sessions are revoked',
    auth: 'session',
    body: passwordChangeSchema,
    responses: {
      204: 'changed',
      400: 'weak_password / password_reused / verification_invalid',
      403: 'invalid_password',
    },
    handler: changePassword,
  },
  {
    method: 'post',
    path: '/api/v1/auth/password/reset/request',
    tag: 'Console: security',
    summary: 'E-mail a reset code: 202 whether or not the e-mail has an account',
    auth: 'none',
    body: resetRequestSchema,
    examples: { response: CODE_SENT_RESPONSE },
    responses: { 202: '{expires_at, cooldown_seconds}', 400: 'captcha_invalid' },
    handler: requestPasswordReset,
  },
  {
    method: 'post',
    path: '/api/v1/auth/password/reset/confirm',
    tag: 'Console: security',
    summary:
      'Set a new password with the reset code; every session is revoked, and every API key unless `revoke_api_keys` is false',
    auth: 'none',
    body: resetConfirmSchema,
    responses: { 204: 'reset', 400: 'weak_password / password_reused / verification_invalid' },
    handler: confirmPasswordReset,
  },
  {
    method: 'get',
    path: '/api/v1/auth/sessions',
    tag: 'Console: security',
    summary: 'The live sessions (`current` marks this one)',
    auth: 'session',
    examples: { response: SESSIONS_RESPONSE },
    handler: listSessions,
  },
  {
    method: 'post',
    path: '/api/v1/auth/sessions/:id/revoke',
    tag: 'Console: security',
    summary: 'Revoke one of your sessions',
    auth: 'session',
    responses: { 204: 'revoked', 404: 'not yours or not live' },
    handler: revokeSessionRoute,
  },
  {
    method: 'post',
    path: '/api/v1/auth/session/token',
    tag: 'Console: security',
    summary:
      'A bearer token for this session (`gwb_…`, 15 minutes; ask again with it to renew), for a console site that is not same-site with the API; ended with the session',
    auth: 'session',
    examples: { response: SESSION_TOKEN_RESPONSE },
    handler: issueSessionToken,
  },
  {
    method: 'post',
    path: '/api/v1/auth/account/close',
    tag: 'Console: security',
    summary:
      'Close the account (password and a `close_account` code): keys revoked, sessions ended, e-mail released; ledger kept',
    auth: 'session',
    body: confirmation,
    responses: { 204: 'closed' },
    handler: closeAccountRoute,
  },
  {
    method: 'get',
    path: '/api/v1/auth/passkeys',
    tag: 'Console: security',
    summary: 'Your passkeys',
    auth: 'session',
    examples: { response: PASSKEYS_RESPONSE },
    handler: listPasskeys,
  },
  {
    method: 'post',
    path: '/api/v1/auth/passkeys/register/options',
    tag: 'Console: security',
    summary:
      'Start adding a passkey (password and an `add_passkey` code) → `{ceremony_id, expires_at, options}` for navigator.credentials.create',
    auth: 'session',
    body: passkeyOptionsSchema,
    examples: { response: PASSKEY_REGISTER_OPTIONS_RESPONSE },
    handler: passkeyRegistrationOptions,
  },
  {
    method: 'post',
    path: '/api/v1/auth/passkeys/register',
    tag: 'Console: security',
    summary: "Finish adding a passkey with the authenticator's attestation",
    auth: 'session',
    body: passkeyRegisterSchema,
    responses: { 201: 'the passkey', 400: 'passkey_invalid' },
    examples: { response: PASSKEY_REGISTERED_RESPONSE },
    handler: registerPasskey,
  },
];
