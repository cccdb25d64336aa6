import { pageQuerySchema } from '../envelope.js';
import { presetCreateSchema, presetUpdateSchema } from '../presets/preset-body.js';
import { createPreset, getPreset, listPresetsRoute, patchPreset, removePreset } from '../presets/presets.js';
import { templateCreateSchema, templateUpdateSchema } from '../prompt-templates/template-body.js';
import {
  createTemplate,
  getTemplate,
  listTemplatesRoute,
  patchTemplate,
  removeTemplate,
} from '../prompt-templates/prompt-templates.js';
import type { Route } from '../../routes/route.js';
import {
  PRESETS_RESPONSE,
  PRESET_RESPONSE,
  TEMPLATES_RESPONSE,
  TEMPLATE_RESPONSE,
} from '../../routes/console-examples.js';
import {
  PRESET_CREATE_EXAMPLES,
  PRESET_UPDATE_EXAMPLES,
  TEMPLATE_CREATE_EXAMPLES,
  TEMPLATE_UPDATE_EXAMPLES,
} from '../../routes/examples.js';

/** Routing presets and prompt templates. */
export const routingRoutes: Route[] = [
  {
    method: 'get',
    path: '/api/v1/presets',
    tag: 'Console: routing',
    summary: "The account's routing presets (paginated envelope)",
    auth: 'session',
    query: pageQuerySchema,
    examples: { response: PRESETS_RESPONSE },
    handler: listPresetsRoute,
  },
  {
    method: 'post',
    path: '/api/v1/presets',
    tag: 'Console: routing',
    summary: 'Create a routing preset, called as `@preset/<slug>`',
    auth: 'session',
    body: presetCreateSchema,
    examples: PRESET_CREATE_EXAMPLES,
    responses: { 201: 'the preset', 409: 'the slug is taken' },
    handler: createPreset,
  },
  {
    method: 'get',
    path: '/api/v1/presets/:slug',
    tag: 'Console: routing',
    summary: 'One preset',
    auth: 'session',
    examples: { response: PRESET_RESPONSE },
    handler: getPreset,
  },
  {
    method: 'patch',
    path: '/api/v1/presets/:slug',
    tag: 'Console: routing',
    summary: 'Update the given fields of a preset',
    auth: 'session',
    body: presetUpdateSchema,
    examples: PRESET_UPDATE_EXAMPLES,
    handler: patchPreset,
  },
  {
    method: 'delete',
    path: '/api/v1/presets/:slug',
    tag: 'Console: routing',
    summary: 'Delete a preset',
    auth: 'session',
    responses: { 204: 'deleted' },
    handler: removePreset,
  },
  {
    method: 'get',
    path: '/api/v1/prompt-templates',
    tag: 'Console: routing',
    summary: "The account's prompt templates (paginated envelope)",
    auth: 'session',
    query: pageQuerySchema,
    examples: { response: TEMPLATES_RESPONSE },
    handler: listTemplatesRoute,
  },
  {
    method: 'post',
    path: '/api/v1/prompt-templates',
    tag: 'Console: routing',
    summary: 'Create a prompt template with weighted versions, bound to keys',
    auth: 'session',
    body: templateCreateSchema,
    examples: TEMPLATE_CREATE_EXAMPLES,
    responses: { 201: 'the template' },
    handler: createTemplate,
  },
  {
    method: 'get',
    path: '/api/v1/prompt-templates/:id',
    tag: 'Console: routing',
    summary: 'One prompt template',
    auth: 'session',
    examples: { response: TEMPLATE_RESPONSE },
    handler: getTemplate,
  },
  {
    method: 'patch',
    path: '/api/v1/prompt-templates/:id',
    tag: 'Console: routing',
    summary: 'Update a template (versions and key_ids replace the lists)',
    auth: 'session',
    body: templateUpdateSchema,
    examples: TEMPLATE_UPDATE_EXAMPLES,
    handler: patchTemplate,
  },
  {
    method: 'delete',
    path: '/api/v1/prompt-templates/:id',
    tag: 'Console: routing',
    summary: 'Delete a template and its bindings',
    auth: 'session',
    responses: { 204: 'deleted' },
    handler: removeTemplate,
  },
];
