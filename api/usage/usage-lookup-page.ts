import { readFileSync } from 'node:fs';
import type { Middleware } from 'koa';
import { projectPath } from '../../shared/paths.js';

// Read once at start: the page is static and the key never reaches the server except on lookup.
const page = readFileSync(projectPath('public', 'usage-lookup.html'));

/** GET /usage-lookup: the web version of the key usage lookup. */
export const usageLookupPage: Middleware = (ctx) => {
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'");
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = page;
};
