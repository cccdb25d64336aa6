import type { RouteDoc } from '../route-doc.js';

export const siteRoutes: RouteDoc[] = [
  { method: 'get', path: '/healthz', tag: 'Operations', summary: 'Liveness', auth: 'none' },
  {
    method: 'get',
    path: '/readyz',
    tag: 'Operations',
    summary: 'Readiness: Postgres and Redis answer (503 otherwise)',
    auth: 'none',
  },
  {
    method: 'get',
    path: '/usage-lookup',
    tag: 'Pages',
    summary: 'The web version of the key usage lookup',
    auth: 'none',
  },
  { method: 'get', path: '/usage-lookup.js', tag: 'Pages', summary: "The lookup page's script", auth: 'none' },
  { method: 'get', path: '/usage-lookup.css', tag: 'Pages', summary: "The lookup page's style", auth: 'none' },
  { method: 'get', path: '/openapi.json', tag: 'Pages', summary: 'This document', auth: 'none' },
  { method: 'get', path: '/docs', tag: 'Pages', summary: 'The reference page for this document', auth: 'none' },
  {
    method: 'get',
    path: '/admin/queues',
    tag: 'Operations',
    summary:
      'The queue dashboard (operator token as a bearer header, or the session the sign-in form sets); a browser without either gets the sign-in form (401)',
    auth: 'operator',
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
  },
];
