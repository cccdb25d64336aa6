import { profileSchema } from '../../console/auth/profile.js';
import { sensitiveCodeSchema } from '../../console/auth/sensitive-code.js';
import { keyCreateSchema, keyUpdateSchema } from '../../../shared/keys/key-settings.js';
import { loginSchema } from '../../console/auth/login.js';
import { pageQuerySchema } from '../../console/envelope.js';
import { presetCreateSchema, presetUpdateSchema } from '../../console/presets/preset-body.js';
import { templateCreateSchema, templateUpdateSchema } from '../../console/prompt-templates/template-body.js';
import { logsQuerySchema, reportQuerySchema } from '../../../shared/usage/report-query.js';
import { exportRequestSchema } from '../../../shared/datasets/filters.js';
import { accountSettingsSchema } from '../../console/account/settings.js';
import type { RouteDoc } from '../route-doc.js';

export const consoleRoutes: RouteDoc[] = [
  { method: 'post', path: '/api/v1/auth/login', tag: 'Console: account', summary: 'Sign in: a session cookie and the same token for bearer use', auth: 'none', body: loginSchema },
  { method: 'post', path: '/api/v1/auth/logout', tag: 'Console: account', summary: 'End the session', auth: 'session' },
  { method: 'get', path: '/api/v1/auth/me', tag: 'Console: account', summary: 'The signed-in user', auth: 'session' },
  { method: 'patch', path: '/api/v1/auth/me', tag: 'Console: account', summary: 'The profile: `nickname` (1-64 characters), `locale` (a BCP 47 tag, canonicalised), `region` (an assigned ISO 3166-1 alpha-2 code); omitted fields unchanged → the user', auth: 'session', body: profileSchema },
  { method: 'post', path: '/api/v1/auth/sensitive-code', tag: 'Console: account', summary: 'E-mails a one-time code for a sensitive action (8 digits, 10 minutes, one use, that action only); again within 60 s → 429 `verification_cooldown`', auth: 'session', body: sensitiveCodeSchema, responses: { 202: '{expires_at, cooldown_seconds}', 429: 'verification_cooldown, with Retry-After and X-RateLimit-*' } },
  { method: 'get', path: '/api/v1/keys', tag: 'Console: keys', summary: "The user's API keys (paginated envelope)", auth: 'session', query: pageQuerySchema },
  { method: 'post', path: '/api/v1/keys', tag: 'Console: keys', summary: 'Create a key; the full secret is in `key`, once', auth: 'session', body: keyCreateSchema, responses: { 201: 'the key with its secret' } },
  { method: 'get', path: '/api/v1/keys/{id}', tag: 'Console: keys', summary: 'One key', auth: 'session' },
  { method: 'patch', path: '/api/v1/keys/{id}', tag: 'Console: keys', summary: 'Update the given fields (the compatibility profile is immutable)', auth: 'session', body: keyUpdateSchema },
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
