import { readFileSync } from 'node:fs';
import type { Middleware } from 'koa';
import { projectPath } from '../../shared/paths.js';

// Read once at start: the page is static; the key never reaches the server except on lookup.
const files = {
  html: readFileSync(projectPath('public', 'usage-lookup.html')),
  js: readFileSync(projectPath('public', 'usage-lookup.js')),
  css: readFileSync(projectPath('public', 'usage-lookup.css')),
};

// Nothing inline, nothing external: scripts and styles from this origin only, requests to it only.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function serve(type: string, body: Buffer): Middleware {
  return (ctx) => {
    ctx.type = type;
    ctx.set('Content-Security-Policy', CSP);
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = body;
  };
}

/** GET /usage-lookup (and its script and style): the web version of the key usage lookup. */
export const usageLookupPage = serve('text/html; charset=utf-8', files.html);
export const usageLookupScript = serve('text/javascript; charset=utf-8', files.js);
export const usageLookupStyle = serve('text/css; charset=utf-8', files.css);
