import { z } from 'zod';
import { docsStartScript, scalarBundle } from '../openapi/docs-page.js';
import { docsPage, openApiJson } from '../openapi/serve.js';
import { liveness, readiness } from '../site.js';
import { usageLookupPage, usageLookupScript, usageLookupStyle } from '../usage/usage-lookup-page.js';
import type { RouteGroup } from './route.js';
import { LIVENESS_RESPONSE, READINESS_RESPONSE } from './examples/site.js';

/** Health probes, this document and the pages served without an API prefix. */
export const siteRoutes: RouteGroup = {
  name: 'site',
  routes: [
    {
      method: 'get',
      path: '/healthz',
      tag: 'Operations',
      summary: 'Liveness',
      auth: 'none',
      response: z.strictObject({ status: z.literal('ok') }),
      examples: { response: LIVENESS_RESPONSE },
      handler: () => liveness,
    },
    {
      method: 'get',
      path: '/readyz',
      tag: 'Operations',
      summary: 'Readiness: Postgres and Redis answer (503 otherwise)',
      auth: 'none',
      response: z.strictObject({ status: z.enum(['ok', 'unavailable']), postgres: z.boolean(), redis: z.boolean() }),
      examples: { response: READINESS_RESPONSE },
      handler: readiness,
    },
    {
      method: 'get',
      path: '/usage-lookup',
      tag: 'Pages',
      summary: 'The web version of the key usage lookup',
      auth: 'none',
      handler: () => usageLookupPage,
    },
    {
      method: 'get',
      path: '/usage-lookup.js',
      tag: 'Pages',
      summary: "The lookup page's script",
      auth: 'none',
      handler: () => usageLookupScript,
    },
    {
      method: 'get',
      path: '/usage-lookup.css',
      tag: 'Pages',
      summary: "The lookup page's style",
      auth: 'none',
      handler: () => usageLookupStyle,
    },
    {
      method: 'get',
      path: '/openapi.json',
      tag: 'Pages',
      summary: 'This document',
      auth: 'none',
      handler: openApiJson,
    },
    {
      method: 'get',
      path: '/docs',
      tag: 'Pages',
      summary: 'The reference page for this document, rendered by Scalar',
      auth: 'none',
      handler: docsPage,
    },
    {
      method: 'get',
      path: '/docs/scalar.js',
      tag: 'Pages',
      summary:
        "The reference page's renderer: Scalar's standalone bundle, from its npm package (gzipped when accepted)",
      auth: 'none',
      handler: () => scalarBundle,
    },
    {
      method: 'get',
      path: '/docs/api-reference.js',
      tag: 'Pages',
      summary: "The reference page's start script",
      auth: 'none',
      handler: () => docsStartScript,
    },
    {
      method: 'get',
      path: '/admin/queues',
      tag: 'Operations',
      summary:
        'The queue dashboard (operator token as a bearer header, or the session the sign-in form sets); a browser without either gets the sign-in form (401)',
      auth: 'operator',
      middleware: 'queueDashboard (api/operator/queue-dashboard.ts)',
    },
    {
      method: 'post',
      path: '/admin/queues',
      tag: 'Operations',
      summary:
        'Dashboard sign-in: the form field `token` (urlencoded) → 303 to the dashboard with a signed 8-hour session cookie (never the token itself)',
      auth: 'none',
      responses: {
        303: 'signed in',
        401: 'the form again: wrong token',
        415: 'unsupported_media_type',
        429: 'too_many_attempts',
      },
      rawBody: {
        media: 'application/x-www-form-urlencoded',
        schema: { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] },
        example: { token: 'the OPERATOR_TOKEN' },
      },
      middleware: 'queueDashboard (api/operator/queue-dashboard.ts)',
    },
  ],
};
