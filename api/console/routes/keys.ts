import { keyCreateSchema, keyUpdateSchema } from '../../../shared/keys/key-settings.js';
import { pageQuerySchema } from '../envelope.js';
import { createKey } from '../keys/create-key.js';
import { getKey } from '../keys/get-key.js';
import { listKeyGroups } from '../keys/list-groups.js';
import { listKeys } from '../keys/list-keys.js';
import { revokeKey } from '../keys/revoke-key.js';
import { updateKey } from '../keys/update-key.js';
import type { Route } from '../../routes/route.js';
import {
  KEY_CREATE_EXAMPLES,
  KEY_GROUPS_RESPONSE,
  KEY_RESPONSE,
  KEY_REVOKED_RESPONSE,
  KEY_UPDATE_EXAMPLES,
  KEYS_RESPONSE,
} from '../../routes/examples/console-keys.js';
import { KEY_RESPONSES } from '../keys/responses.js';

/** The user's API keys (`/keys/groups` before `/keys/:id`: routes match in list order). */
export const keyRoutes: Route[] = [
  {
    method: 'get',
    path: '/api/v1/keys',
    tag: 'Console: keys',
    summary: "The user's API keys (paginated envelope)",
    auth: 'session',
    response: KEY_RESPONSES.page,
    query: pageQuerySchema,
    examples: { response: KEYS_RESPONSE },
    handler: listKeys,
  },
  {
    method: 'post',
    path: '/api/v1/keys',
    tag: 'Console: keys',
    summary: 'Create a key; the full secret is in `key`, once; the owner is mailed a notice',
    auth: 'session',
    response: KEY_RESPONSES.created,
    body: keyCreateSchema,
    examples: KEY_CREATE_EXAMPLES,
    responses: { 201: 'the key with its secret', 403: 'group_not_allowed' },
    handler: createKey,
  },
  {
    method: 'get',
    path: '/api/v1/keys/groups',
    tag: 'Console: keys',
    summary: 'The groups you may give a key: `default`, the self-service ones and those the operator allowed you',
    auth: 'session',
    response: KEY_RESPONSES.groups,
    examples: { response: KEY_GROUPS_RESPONSE },
    handler: listKeyGroups,
  },
  {
    method: 'get',
    path: '/api/v1/keys/:id',
    tag: 'Console: keys',
    summary: 'One key',
    auth: 'session',
    response: KEY_RESPONSES.one,
    examples: { response: KEY_RESPONSE },
    handler: getKey,
  },
  {
    method: 'patch',
    path: '/api/v1/keys/:id',
    tag: 'Console: keys',
    summary:
      'Update the given fields (the compatibility profile is immutable); `status` `disabled` refuses the key with 403 `key_disabled` until set `active` again',
    auth: 'session',
    response: KEY_RESPONSES.one,
    body: keyUpdateSchema,
    examples: KEY_UPDATE_EXAMPLES,
    responses: { 403: 'group_not_allowed' },
    handler: updateKey,
  },
  {
    method: 'post',
    path: '/api/v1/keys/:id/revoke',
    tag: 'Console: keys',
    summary: 'Revoke the key',
    auth: 'session',
    response: KEY_RESPONSES.one,
    examples: { response: KEY_REVOKED_RESPONSE },
    handler: revokeKey,
  },
];
