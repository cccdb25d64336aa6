import { estimateSchema } from '../../estimates/create-estimate.js';
import { chatRequestSchema } from '../../../shared/protocols/openai/chat-request.js';
import type { RouteDoc } from '../route-doc.js';

export const gatewayRoutes: RouteDoc[] = [
  { method: 'post', path: '/v1/chat/completions', tag: 'Chat', summary: 'Chat completions (OpenAI format), plain or streamed with `stream: true`', auth: 'apiKey', body: chatRequestSchema, streams: true },
  { method: 'get', path: '/v1/models', tag: 'Models', summary: 'The models the key may call', auth: 'apiKey' },
  { method: 'get', path: '/v1/models/{id}', tag: 'Models', summary: 'One model by its API id (ids may contain `/`)', auth: 'apiKey' },
  { method: 'post', path: '/v1/estimates', tag: 'Estimates', summary: 'What a call would cost this key (no upstream call, nothing reserved)', auth: 'apiKey', body: estimateSchema },
  { method: 'get', path: '/v1/key/usage', tag: 'Usage', summary: "The key's own usage view (works whatever its usage-access switch)", auth: 'apiKey', responses: { 200: 'the key usage view', 401: 'invalid, revoked or expired key', 403: 'disabled key', 429: 'lookup frequency exceeded' } },
];
