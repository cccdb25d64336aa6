import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Middleware } from 'koa';
import { projectPath } from '../../shared/paths.js';

/**
 * Scripts from this origin only (the renderer's bundle and its start script), requests to this
 * origin only (the document, and "Test request" calls to the gateway itself). Scalar sets inline
 * `style` attributes and `<style>` elements as it renders, so this page alone, not the console
 * site nor the usage lookup, allows inline styles; no script can be inline, none is evaluated.
 */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data: blob:; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The reference page: a shell the renderer fills from /openapi.json; without scripts, a link to it. */
export function renderDocsPage(info: { title: string }): string {
  const title = `${escapeHtml(info.title)} API reference`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title></head><body><noscript><h1>${title}</h1><p>The reference needs JavaScript; the document itself is at <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p></noscript><div id="reference"></div><script src="/docs/scalar.js"></script><script src="/docs/api-reference.js"></script></body></html>`;
}

/** Scalar's standalone bundle, as its npm package ships it (one file, nothing fetched from elsewhere). */
function scalarBundlePath(): string {
  // The package exports no subpath for it: find it beside the package's entry point.
  const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
  return path.join(path.dirname(entry), 'browser', 'standalone.js');
}

interface StaticScript {
  plain: Buffer;
  gzipped: Buffer;
}

function script(read: () => Buffer): Middleware {
  // Read and compressed on first use: 4 MB that most gateway processes never serve.
  let loaded: StaticScript | undefined;
  return (ctx) => {
    if (!loaded) {
      const plain = read();
      loaded = { plain, gzipped: gzipSync(plain) };
    }
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.vary('Accept-Encoding');
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = loaded.gzipped;
    } else {
      ctx.body = loaded.plain;
    }
  };
}

/** GET /docs/scalar.js: the renderer. */
export const scalarBundle = script(() => readFileSync(scalarBundlePath()));
/** GET /docs/api-reference.js: starts the renderer on /openapi.json (public/api-reference.js). */
export const docsStartScript = script(() => readFileSync(projectPath('public', 'api-reference.js')));
