import type { Middleware } from 'koa';
import { GATEWAY_VERSION } from '../../shared/version.js';
import type { Route } from '../routes/route.js';
import { renderDocsPage, DOCS_CSP } from './docs-page.js';
import { buildOpenApiDocument } from './document.js';

/** GET /openapi.json: the document of the route list the app was built from, serialised once. */
export function openApiJson(_services: unknown, list: readonly Route[]): Middleware {
  const json = JSON.stringify(buildOpenApiDocument(list, GATEWAY_VERSION));
  return (ctx) => {
    ctx.type = 'application/json';
    ctx.body = json;
  };
}

/** GET /docs: the same document as a page, rendered in the browser by Scalar (docs-page.ts). */
export function docsPage(): Middleware {
  const page = renderDocsPage({ title: 'Model gateway' });
  return (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = page;
  };
}
