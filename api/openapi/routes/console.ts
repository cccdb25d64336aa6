import { keyCreateSchema, keyUpdateSchema } from '../../../shared/keys/key-settings.js';
import { loginSchema } from '../../console/auth/login.js';
import { pageQuerySchema } from '../../console/envelope.js';
import type { RouteDoc } from '../route-doc.js';

export const consoleRoutes: RouteDoc[] = [
  { method: 'post', path: '/api/v1/auth/login', tag: 'Console: account', summary: 'Sign in: a session cookie and the same token for bearer use', auth: 'none', body: loginSchema },
  { method: 'post', path: '/api/v1/auth/logout', tag: 'Console: account', summary: 'End the session', auth: 'session' },
  { method: 'get', path: '/api/v1/auth/me', tag: 'Console: account', summary: 'The signed-in user', auth: 'session' },
  { method: 'get', path: '/api/v1/keys', tag: 'Console: keys', summary: "The user's API keys (paginated envelope)", auth: 'session', query: pageQuerySchema },
  { method: 'post', path: '/api/v1/keys', tag: 'Console: keys', summary: 'Create a key; the full secret is in `key`, once', auth: 'session', body: keyCreateSchema, responses: { 201: 'the key with its secret' } },
  { method: 'get', path: '/api/v1/keys/{id}', tag: 'Console: keys', summary: 'One key', auth: 'session' },
  { method: 'patch', path: '/api/v1/keys/{id}', tag: 'Console: keys', summary: 'Update the given fields (the compatibility profile is immutable)', auth: 'session', body: keyUpdateSchema },
  { method: 'post', path: '/api/v1/keys/{id}/revoke', tag: 'Console: keys', summary: 'Revoke the key', auth: 'session' },
];
