import { privateCallSchema, privateLookupSchema } from '../../shared/private/call-request.js';
import { privateCall, privateCancel, privateGetResult } from '../private/handlers.js';
import type { RouteGroup } from './route.js';
import { PRIVATE_CALL_EXAMPLES, PRIVATE_CANCEL_EXAMPLES, PRIVATE_LOOKUP_EXAMPLES } from './examples/private.js';
import { privateCallAnswer } from '../private/responses.js';

/** The private protocol: the `ak-` key in the body; docs/reference/private-protocol.md. */
export const privateRoutes: RouteGroup = {
  name: 'private',
  prefix: '/server/v1',
  routes: [
    {
      method: 'post',
      path: '/server/v1/call',
      tag: 'Private protocol',
      summary:
        '`{apiKey, clientRequestId, model, stream?, wait_ms?, input}`: a chat, video or image call as a durable, idempotent job (24 h by clientRequestId) → `{code: 0, message: "success", data: {task_id, client_request_id, status, result?, error?}}`; `stream: true` is real SSE under standard_v1',
      auth: 'bodyKey',
      response: privateCallAnswer,
      body: privateCallSchema,
      examples: PRIVATE_CALL_EXAMPLES,
      streams: true,
      handler: privateCall,
    },
    {
      method: 'post',
      path: '/server/v1/getResult',
      tag: 'Private protocol',
      summary:
        '`{apiKey, clientRequestId | taskId}` → the same `data`; a miss: `{code: -1, message: "task not found"}` (standard_v1, 404) or an empty body (legacy_v1)',
      auth: 'bodyKey',
      response: privateCallAnswer,
      body: privateLookupSchema,
      examples: PRIVATE_LOOKUP_EXAMPLES,
      handler: privateGetResult,
    },
    {
      method: 'post',
      path: '/server/v1/cancel',
      tag: 'Private protocol',
      summary:
        '`{apiKey, clientRequestId | taskId}`: cancels a video or image call not finished upstream (409 once finished, and for chat calls)',
      auth: 'bodyKey',
      response: privateCallAnswer,
      body: privateLookupSchema,
      examples: PRIVATE_CANCEL_EXAMPLES,
      handler: privateCancel,
    },
  ],
};
