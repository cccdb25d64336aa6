import { profileSchema } from '../../console/auth/profile.js';
import { sensitiveCodeSchema } from '../../console/auth/sensitive-code.js';
import { keyCreateSchema, keyUpdateSchema } from '../../../shared/keys/key-settings.js';
import { loginSchema, loginTwoStepSchema } from '../../console/auth/login.js';
import { confirmation } from '../../console/auth/fields.js';
import { providerTwoStepSchema } from '../../console/auth/oauth.js';
import { passkeyOptionsSchema, passkeyRegisterSchema, passkeySignInSchema } from '../../console/auth/passkeys.js';
import { passwordChangeSchema, resetConfirmSchema, resetRequestSchema } from '../../console/auth/password.js';
import { registerConfirmSchema, registerSchema } from '../../console/auth/register.js';
import { twoFactorSchema } from '../../console/auth/two-factor.js';
import { pageQuerySchema } from '../../console/envelope.js';
import { presetCreateSchema, presetUpdateSchema } from '../../console/presets/preset-body.js';
import { templateCreateSchema, templateUpdateSchema } from '../../console/prompt-templates/template-body.js';
import { logsQuerySchema, reportQuerySchema } from '../../../shared/usage/report-query.js';
import { exportRequestSchema } from '../../../shared/datasets/filters.js';
import { accountSettingsSchema } from '../../console/account/settings.js';
import type { RouteDoc } from '../route-doc.js';

export const consoleRoutes: RouteDoc[] = [
  { method: 'post', path: '/api/v1/auth/register', tag: 'Console: account', summary: 'Sign up: 202 for every e-mail (no account is revealed); a new address gets a `verify_email` code', auth: 'none', body: registerSchema, responses: { 202: '{expires_at, cooldown_seconds}', 400: 'weak_password' } },
  { method: 'post', path: '/api/v1/auth/register/confirm', tag: 'Console: account', summary: 'Confirm the sign-up e-mail with its code and choose the password (the one given here is the account\'s) → signed in', auth: 'none', body: registerConfirmSchema, responses: { 201: '{token, expires_at, user}', 400: 'weak_password / verification_invalid' } },
  { method: 'post', path: '/api/v1/auth/login', tag: 'Console: account', summary: 'Sign in: a session cookie and the same token for bearer use; with two-step verification on, 401 `mfa_required` (code e-mailed) unless `code` is sent', auth: 'none', body: loginSchema, responses: { 401: 'invalid_credentials / mfa_required / mfa_invalid', 429: 'account_locked / too_many_attempts' } },
  { method: 'post', path: '/api/v1/auth/login/2fa', tag: 'Console: account', summary: 'The full sign-in that takes the e-mailed code', auth: 'none', body: loginTwoStepSchema, responses: { 401: 'invalid_credentials / mfa_invalid', 429: 'account_locked / too_many_attempts' } },
  { method: 'get', path: '/api/v1/auth/mfa/status', tag: 'Console: security', summary: 'Whether two-step verification is on: `{enabled}`', auth: 'session' },
  { method: 'post', path: '/api/v1/auth/two-factor', tag: 'Console: security', summary: 'Turn two-step verification on or off (password and a `two_factor` code, consumed) → `{enabled}`', auth: 'session', body: twoFactorSchema, responses: { 403: 'invalid_password', 400: 'verification_invalid / verification_exhausted' } },
  { method: 'post', path: '/api/v1/auth/password/change', tag: 'Console: security', summary: 'Change (or, without a password, set) the password with a `change_password` code; other sessions are revoked', auth: 'session', body: passwordChangeSchema, responses: { 204: 'changed', 400: 'weak_password / password_reused / verification_invalid', 403: 'invalid_password' } },
  { method: 'post', path: '/api/v1/auth/password/reset/request', tag: 'Console: security', summary: 'E-mail a reset code: 202 whether or not the e-mail has an account', auth: 'none', body: resetRequestSchema, responses: { 202: '{expires_at, cooldown_seconds}', 400: 'captcha_invalid' } },
  { method: 'post', path: '/api/v1/auth/password/reset/confirm', tag: 'Console: security', summary: 'Set a new password with the reset code; every session is revoked, and every API key unless `revoke_api_keys` is false', auth: 'none', body: resetConfirmSchema, responses: { 204: 'reset', 400: 'weak_password / password_reused / verification_invalid' } },
  { method: 'get', path: '/api/v1/auth/sessions', tag: 'Console: security', summary: 'The live sessions (`current` marks this one)', auth: 'session' },
  { method: 'post', path: '/api/v1/auth/sessions/{id}/revoke', tag: 'Console: security', summary: 'Revoke one of your sessions', auth: 'session', responses: { 204: 'revoked', 404: 'not yours or not live' } },
  { method: 'post', path: '/api/v1/auth/account/close', tag: 'Console: security', summary: 'Close the account (password and a `close_account` code): keys revoked, sessions ended, e-mail released; ledger kept', auth: 'session', body: confirmation, responses: { 204: 'closed' } },
  { method: 'get', path: '/api/v1/auth/passkeys', tag: 'Console: security', summary: 'Your passkeys', auth: 'session' },
  { method: 'post', path: '/api/v1/auth/passkeys/register/options', tag: 'Console: security', summary: 'Start adding a passkey (password and an `add_passkey` code) → `{ceremony_id, expires_at, options}` for navigator.credentials.create', auth: 'session', body: passkeyOptionsSchema },
  { method: 'post', path: '/api/v1/auth/passkeys/register', tag: 'Console: security', summary: "Finish adding a passkey with the authenticator's attestation", auth: 'session', body: passkeyRegisterSchema, responses: { 201: 'the passkey', 400: 'passkey_invalid' } },
  { method: 'post', path: '/api/v1/auth/passkeys/login/options', tag: 'Console: account', summary: 'Start a passkey sign-in → `{ceremony_id, expires_at, options}` for navigator.credentials.get', auth: 'none' },
  { method: 'post', path: '/api/v1/auth/passkeys/login', tag: 'Console: account', summary: 'Sign in with a passkey assertion (no two-step code needed)', auth: 'none', body: passkeySignInSchema, responses: { 401: 'passkey_invalid' } },
  { method: 'post', path: '/api/v1/auth/passkeys/{id}/remove', tag: 'Console: security', summary: 'Remove a passkey (password and a `remove_passkey` code)', auth: 'session', body: confirmation, responses: { 204: 'removed', 404: 'not yours', 409: 'last_sign_in_method' } },
  { method: 'get', path: '/api/v1/auth/oauth/providers', tag: 'Console: account', summary: 'The enabled sign-in providers `[{name, display_name}]`', auth: 'none' },
  { method: 'get', path: '/api/v1/auth/oauth/{provider}/authorize', tag: 'Console: account', summary: "Redirect to the provider for a sign-in or sign-up (PKCE, state and nonce), setting the browser's binding cookie", auth: 'none', responses: { 302: 'to the provider' } },
  { method: 'get', path: '/api/v1/auth/oauth/{provider}/callback', tag: 'Console: account', summary: "The provider's return, only in the browser that started it (its binding cookie; a link also in the same console session): signs in, signs up or links, then redirects to the console's `/oauth/callback?provider&result=signed_in|mfa_required|linked|error`", auth: 'none', responses: { 302: 'to the console' } },
  { method: 'post', path: '/api/v1/auth/oauth/2fa', tag: 'Console: account', summary: 'Finish a provider sign-in held by two-step verification: the `ticket` from the callback and the e-mailed code', auth: 'none', body: providerTwoStepSchema, responses: { 401: 'mfa_invalid' } },
  { method: 'post', path: '/api/v1/auth/oauth/{provider}/link', tag: 'Console: security', summary: 'Start linking a provider (password and a `link_provider` code) → `{url, expires_at}`, to open in this browser (its binding cookie is set)', auth: 'session', body: confirmation, responses: { 409: 'provider_already_linked' } },
  { method: 'get', path: '/api/v1/auth/identities', tag: 'Console: security', summary: 'The providers linked to you', auth: 'session' },
  { method: 'post', path: '/api/v1/auth/identities/{provider}/unlink', tag: 'Console: security', summary: 'Unlink a provider (password and an `unlink_provider` code)', auth: 'session', body: confirmation, responses: { 204: 'unlinked', 404: 'not linked', 409: 'last_sign_in_method' } },
  { method: 'post', path: '/api/v1/auth/logout', tag: 'Console: account', summary: 'End the session', auth: 'session' },
  { method: 'get', path: '/api/v1/auth/me', tag: 'Console: account', summary: 'The signed-in user', auth: 'session' },
  { method: 'patch', path: '/api/v1/auth/me', tag: 'Console: account', summary: 'The profile: `nickname` (1-64 characters), `locale` (a BCP 47 tag, canonicalised), `region` (an assigned ISO 3166-1 alpha-2 code); omitted fields unchanged → the user', auth: 'session', body: profileSchema },
  { method: 'post', path: '/api/v1/auth/sensitive-code', tag: 'Console: account', summary: 'E-mails a one-time code for a sensitive action (8 digits, 10 minutes, one use, that action only); again within 60 s → 429 `verification_cooldown`', auth: 'session', body: sensitiveCodeSchema, responses: { 202: '{expires_at, cooldown_seconds}', 429: 'verification_cooldown, with Retry-After and X-RateLimit-*' } },
  { method: 'get', path: '/api/v1/keys', tag: 'Console: keys', summary: "The user's API keys (paginated envelope)", auth: 'session', query: pageQuerySchema },
  { method: 'post', path: '/api/v1/keys', tag: 'Console: keys', summary: 'Create a key; the full secret is in `key`, once; the owner is mailed a notice', auth: 'session', body: keyCreateSchema, responses: { 201: 'the key with its secret', 403: 'group_not_allowed' } },
  { method: 'get', path: '/api/v1/keys/groups', tag: 'Console: keys', summary: 'The groups you may give a key: `default`, the self-service ones and those the operator allowed you', auth: 'session' },
  { method: 'get', path: '/api/v1/keys/{id}', tag: 'Console: keys', summary: 'One key', auth: 'session' },
  { method: 'patch', path: '/api/v1/keys/{id}', tag: 'Console: keys', summary: 'Update the given fields (the compatibility profile is immutable)', auth: 'session', body: keyUpdateSchema, responses: { 403: 'group_not_allowed' } },
  { method: 'post', path: '/api/v1/keys/{id}/revoke', tag: 'Console: keys', summary: 'Revoke the key', auth: 'session' },
  { method: 'get', path: '/api/v1/usage/report', tag: 'Console: usage', summary: "The signed-in owner's usage report (as /v1/usage/report)", auth: 'session', query: reportQuerySchema },
  { method: 'get', path: '/api/v1/usage/logs', tag: 'Console: usage', summary: "The signed-in owner's request records (as /v1/usage/logs)", auth: 'session', query: logsQuerySchema },
  { method: 'get', path: '/api/v1/ledger', tag: 'Console: usage', summary: "The account's ledger, newest first (paginated envelope)", auth: 'session', query: pageQuerySchema },
  { method: 'get', path: '/api/v1/account/settings', tag: 'Console: account', summary: 'Account settings (`log_content`)', auth: 'session' },
  { method: 'patch', path: '/api/v1/account/settings', tag: 'Console: account', summary: 'Turn content logging on or off (prompts and completions kept in object storage for dataset exports)', auth: 'session', body: accountSettingsSchema },
  { method: 'get', path: '/api/v1/datasets/exports', tag: 'Console: usage', summary: "The account's dataset exports (paginated envelope)", auth: 'session', query: pageQuerySchema },
  { method: 'post', path: '/api/v1/datasets/exports', tag: 'Console: usage', summary: 'Export usage records with their scores (and content, when logged) as JSONL', auth: 'session', body: exportRequestSchema, responses: { 202: 'the export, queued' } },
  { method: 'get', path: '/api/v1/datasets/exports/{id}', tag: 'Console: usage', summary: 'An export: its status and, once written, a short-lived download link', auth: 'session' },
  { method: 'get', path: '/api/v1/presets', tag: 'Console: routing', summary: "The account's routing presets (paginated envelope)", auth: 'session', query: pageQuerySchema },
  { method: 'post', path: '/api/v1/presets', tag: 'Console: routing', summary: 'Create a routing preset, called as `@preset/<slug>`', auth: 'session', body: presetCreateSchema, responses: { 201: 'the preset', 409: 'the slug is taken' } },
  { method: 'get', path: '/api/v1/presets/{slug}', tag: 'Console: routing', summary: 'One preset', auth: 'session' },
  { method: 'patch', path: '/api/v1/presets/{slug}', tag: 'Console: routing', summary: 'Update the given fields of a preset', auth: 'session', body: presetUpdateSchema },
  { method: 'delete', path: '/api/v1/presets/{slug}', tag: 'Console: routing', summary: 'Delete a preset', auth: 'session', responses: { 204: 'deleted' } },
  { method: 'get', path: '/api/v1/prompt-templates', tag: 'Console: routing', summary: "The account's prompt templates (paginated envelope)", auth: 'session', query: pageQuerySchema },
  { method: 'post', path: '/api/v1/prompt-templates', tag: 'Console: routing', summary: 'Create a prompt template with weighted versions, bound to keys', auth: 'session', body: templateCreateSchema, responses: { 201: 'the template' } },
  { method: 'get', path: '/api/v1/prompt-templates/{id}', tag: 'Console: routing', summary: 'One prompt template', auth: 'session' },
  { method: 'patch', path: '/api/v1/prompt-templates/{id}', tag: 'Console: routing', summary: 'Update a template (versions and key_ids replace the lists)', auth: 'session', body: templateUpdateSchema },
  { method: 'delete', path: '/api/v1/prompt-templates/{id}', tag: 'Console: routing', summary: 'Delete a template and its bindings', auth: 'session', responses: { 204: 'deleted' } },
];
