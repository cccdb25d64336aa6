import type Router from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayRouters } from '../../api/app.js';
import { documentedRoutes } from '../../api/openapi/routes/index.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ env: { OPERATOR_TOKEN: 'operator-secret-token-123456' } });
});
afterAll(async () => {
  await gw?.close();
});

/** `METHOD /path/{param}` for every route the Koa routers register (HEAD only where declared alone). */
function registeredRoutes(routers: Router[]): Set<string> {
  const routes = new Set<string>();
  for (const router of routers) {
    for (const layer of router.stack as Array<{ methods: string[]; path: string | RegExp }>) {
      if (typeof layer.path !== 'string' || layer.methods.length === 0) continue;
      const path = layer.path.replace(/[:*](\w+)/g, '{$1}');
      for (const method of layer.methods) {
        if (method === 'HEAD' && layer.methods.includes('GET')) continue;
        routes.add(`${method} ${path}`);
      }
    }
  }
  return routes;
}

// Served by middleware rather than a router: checked over HTTP below.
const MIDDLEWARE_ROUTES = new Set(['GET /admin/queues', 'POST /admin/queues']);

describe('the OpenAPI document', () => {
  it('documents every registered route, and every documented route exists', async () => {
    const registered = registeredRoutes(gatewayRouters(gw.services));
    const documented = new Set(documentedRoutes.map((r) => `${r.method.toUpperCase()} ${r.path}`));
    expect(
      [...registered].filter((r) => !documented.has(r)),
      'registered but not documented',
    ).toEqual([]);
    expect(
      [...documented].filter((r) => !registered.has(r) && !MIDDLEWARE_ROUTES.has(r)),
      'documented but not registered',
    ).toEqual([]);
    const dashboard = await fetch(`${gw.url}/admin/queues`, {
      headers: { authorization: 'Bearer operator-secret-token-123456' },
    });
    expect(dashboard.status).toBe(200);
  });

  it('is served at /openapi.json as OpenAPI 3.1 with the schemas the routes validate with', async () => {
    const res = await fetch(`${gw.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: {
              content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }>;
            };
            parameters?: Array<{ name: string; in: string }>;
          }
        >
      >;
    };
    expect(doc.openapi).toBe('3.1.0');
    const video = doc.paths['/v1/videos']?.post?.requestBody?.content['application/json']?.schema;
    expect(Object.keys(video?.properties ?? {})).toEqual(
      expect.arrayContaining(['model', 'content', 'duration', 'resolution', 'generate_audio']),
    );
    expect(video?.required).toEqual(expect.arrayContaining(['model', 'content']));
    expect(doc.paths['/v1/videos']?.get?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual([
      'query:limit',
      'query:after',
    ]);
    expect(doc.paths['/v1/videos/{id}']?.get?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(['path:id']);
  });

  it('has a self-contained reference page at /docs: no scripts, nothing external', async () => {
    const res = await fetch(`${gw.url}/docs`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
    for (const route of documentedRoutes) expect(html).toContain(route.path.replace(/&/g, '&#38;'));
  });
});
