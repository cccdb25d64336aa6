import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../api/routes/index.js';
import { openApiPath } from '../../api/routes/route.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ env: { OPERATOR_TOKEN: 'operator-secret-token-123456' } });
});
afterAll(async () => {
  await gw?.close();
});

interface Operation {
  tags?: string[];
  summary?: string;
  security?: Record<string, unknown>[];
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> };
  responses?: Record<string, unknown>;
}
interface Document {
  openapi: string;
  info: { title: string; version: string };
  components: { securitySchemes: Record<string, unknown> };
  paths: Record<string, Record<string, Operation>>;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

async function document(): Promise<Document> {
  const res = await fetch(`${gw.url}/openapi.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as Document;
}

/** A request to the route with its parameters filled in (a model id where the route takes one). */
function sample(path: string): string {
  return openApiPath(path).replace(/\{(\w+)\}/g, (_, name: string) => (name === 'model' ? 'gpt-sim' : 'x'));
}

describe('the route list', () => {
  it('declares each method and path once', () => {
    const seen = ROUTES.map((r) => `${r.method.toUpperCase()} ${openApiPath(r.path)}`);
    expect(seen.filter((r, i) => seen.indexOf(r) !== i)).toEqual([]);
  });

  it('is served: no declared route answers "no route", 405 or 501', async () => {
    const misses: string[] = [];
    for (const route of ROUTES) {
      const method = route.method.toUpperCase();
      const res = await fetch(`${gw.url}${sample(route.path)}`, {
        method,
        headers: {
          'content-type': 'application/json',
          ...(route.auth === 'operator' ? { authorization: 'Bearer operator-secret-token-123456' } : {}),
        },
        body: method === 'GET' || method === 'HEAD' ? undefined : '{}',
        redirect: 'manual',
      });
      const text = await res.text();
      if (res.status === 405 || res.status === 501 || text.includes('no route for'))
        misses.push(`${method} ${route.path}: ${res.status} ${text.slice(0, 120)}`);
    }
    expect(misses).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 with an operation for every declared route', async () => {
    const doc = await document();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toEqual(expect.any(String));
    expect(doc.info.version).toEqual(expect.any(String));
    for (const route of ROUTES)
      expect(doc.paths[openApiPath(route.path)]?.[route.method], `${route.method} ${route.path}`).toBeDefined();
    const operations = Object.values(doc.paths).flatMap((item) => Object.keys(item));
    expect(operations).toHaveLength(ROUTES.length);
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(path).toMatch(/^\//);
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name).sort();
      for (const [method, op] of Object.entries(item)) {
        const where = `${method} ${path}`;
        expect(METHODS.has(method), where).toBe(true);
        expect(op.tags?.length, where).toBeGreaterThan(0);
        expect(op.summary, where).toEqual(expect.any(String));
        expect(Object.keys(op.responses ?? {}).length, where).toBeGreaterThan(0);
        const inPath = (op.parameters ?? []).filter((p) => p.in === 'path');
        expect(inPath.map((p) => p.name).sort(), where).toEqual(templated);
        expect(
          inPath.every((p) => p.required === true),
          where,
        ).toBe(true);
        for (const requirement of op.security ?? [])
          for (const scheme of Object.keys(requirement))
            expect(doc.components.securitySchemes, where).toHaveProperty(scheme);
      }
    }
    const dashboard = await fetch(`${gw.url}/admin/queues`, {
      headers: { authorization: 'Bearer operator-secret-token-123456' },
    });
    expect(dashboard.status).toBe(200);
  });

  it('is served at /openapi.json with the schemas the routes validate with', async () => {
    const doc = await document();
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
    const generate = doc.paths['/v1beta/models/{model}:generateContent']?.post;
    expect(generate?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(['path:model']);
    expect(Object.keys(generate?.requestBody?.content['application/json']?.schema.properties ?? {})).toContain(
      'contents',
    );
  });

  it('has a reference page at /docs whose scripts all come from the gateway itself', async () => {
    const res = await fetch(`${gw.url}/docs`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toMatch(/unsafe-eval|https?:/);
    const html = await res.text();
    // Only same-origin script files: nothing inline, nothing from another origin.
    expect([...html.matchAll(/<script([^>]*)>([^<]*)<\/script>/gi)].map(([, attrs, body]) => [attrs, body])).toEqual([
      [' src="/docs/scalar.js"', ''],
      [' src="/docs/api-reference.js"', ''],
    ]);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
  });

  it('gives every route with a body a request example it accepts, response examples where declared, and Markdown descriptions beside plain summaries', async () => {
    const doc = (await document()) as Document & {
      paths: Record<string, Record<string, Operation & { description?: string }>>;
    };
    // Each example is a body the route itself accepts.
    const refused: string[] = [];
    for (const route of ROUTES.filter((r) => r.body)) {
      const op = doc.paths[openApiPath(route.path)]?.[route.method];
      const media = op?.requestBody?.content['application/json'] as { example?: unknown } | undefined;
      expect(media?.example, `${route.method} ${route.path}`).toBeDefined();
      const parsed = route.body!.safeParse(media?.example);
      if (!parsed.success) refused.push(`${route.method} ${route.path}: ${parsed.error.message.slice(0, 200)}`);
    }
    expect(refused).toEqual([]);
    const chat = doc.paths['/v1/chat/completions']?.post?.responses?.['200'] as
      | { content?: Record<string, { example?: { object?: string } }> }
      | undefined;
    expect(chat?.content?.['application/json']?.example?.object).toBe('chat.completion');
    const create = doc.paths['/api/v1/keys']?.post;
    expect(create?.summary).not.toContain('`');
    expect(create?.description).toContain('`key`');
  });

  it('gives each success answer its example in its media type, and its schema where the route declares one', async () => {
    type Media = {
      schema?: { properties?: Record<string, unknown>; additionalProperties?: unknown };
      example?: unknown;
    };
    const content = (doc: Document, path: string, method: string, status = '200') =>
      (doc.paths[path]?.[method]?.responses?.[status] as { content?: Record<string, Media> } | undefined)?.content ??
      {};
    const doc = await document();
    const key = content(doc, '/api/v1/keys/{id}', 'get')['application/json'];
    expect(Object.keys(key?.schema?.properties ?? {})).toEqual(['data', 'request_id']);
    expect(key?.schema?.additionalProperties).toBe(false);
    expect(key?.example).toMatchObject({ data: { id: expect.any(String), rpm_limit: 600 } });
    const created = content(doc, '/api/v1/keys', 'post', '201')['application/json'];
    expect(Object.keys((created?.schema?.properties?.data as Media['schema'])?.properties ?? {})).toContain('key');
    // A stream and a JSONL file are shown as their text.
    const stream = content(doc, '/v1beta/models/{model}:streamGenerateContent', 'post');
    expect(Object.keys(stream)).toEqual(['text/event-stream']);
    expect(stream['text/event-stream']?.example).toMatch(/^data: \{"candidates"/);
    expect(Object.keys(content(doc, '/v1/files/{id}/content', 'get'))).toEqual(['application/jsonl']);
    // No body: no content.
    expect(content(doc, '/api/v1/presets/{slug}', 'delete', '204')).toEqual({});
    // A body that is not JSON is described in its own media type.
    const upload = doc.paths['/v1/files']?.post?.requestBody?.content as Record<string, Media> | undefined;
    expect(Object.keys(upload ?? {})).toEqual(['multipart/form-data']);
    expect(upload?.['multipart/form-data']?.schema?.properties).toHaveProperty('file');
    for (const route of ROUTES.filter((r) => r.rawBody))
      expect(
        doc.paths[openApiPath(route.path)]?.[route.method]?.requestBody,
        `${route.method} ${route.path}`,
      ).toBeDefined();
  });
});
