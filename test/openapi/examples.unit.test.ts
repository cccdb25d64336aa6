import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../api/routes/index.js';
import { successStatus, type Route } from '../../api/routes/route.js';
import { exampleBody } from './example-shapes.js';

// What every route declares for the reference; the examples' agreement with the real answers is
// checked on a running gateway (console-, task- and api-examples.test.ts).
const name = (r: Route) => `${r.method} ${r.path}`;

/** The pages and scripts the site serves, and the document itself: their answers are not API objects. */
const NOT_AN_OBJECT = new Set([
  'get /usage-lookup',
  'get /usage-lookup.js',
  'get /usage-lookup.css',
  'get /openapi.json',
  'get /docs',
  'get /docs/scalar.js',
  'get /docs/api-reference.js',
  'get /admin/queues',
]);

describe('the route list, for the reference', () => {
  it('gives every route that answers a body a response example', () => {
    const missing = ROUTES.filter((r) => successStatus(r) && r.examples?.response === undefined);
    expect(missing.map(name).filter((r) => !NOT_AN_OBJECT.has(r))).toEqual([]);
  });

  it('gives every console route that answers a body its response schema, which its example parses with', () => {
    const console = ROUTES.filter((r) => r.path.startsWith('/api/v1/') && successStatus(r));
    expect(console.filter((r) => !r.response).map(name)).toEqual([]);
    const refused = ROUTES.filter((r) => r.response && !r.response.safeParse(exampleBody(r)).success).map(name);
    expect(refused).toEqual([]);
  });
});
