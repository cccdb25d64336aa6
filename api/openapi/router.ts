import type Router from '@koa/router';
import { apiRouter } from '../http/router.js';
import { renderDocsPage, DOCS_CSP } from './docs-page.js';
import { buildOpenApiDocument } from './document.js';
import { documentedRoutes } from './routes/index.js';

/** GET /openapi.json and GET /docs, built once at start from the documented routes. */
export function openApiRouter(version: string): Router {
  const document = buildOpenApiDocument(documentedRoutes, version);
  const json = JSON.stringify(document);
  const page = renderDocsPage(document as Parameters<typeof renderDocsPage>[0]);
  const router = apiRouter();
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = json;
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.body = page;
  });
  return router;
}
