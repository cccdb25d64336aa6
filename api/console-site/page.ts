import { SESSION_COOKIE_NAMES } from '../console/cookie.js';

/**
 * The site's index.html with its runtime setting in the page itself, `<meta name="console-config"
 * content="{…}">`, in place of the preload of /config.json: the page reads it without a second
 * round trip before it asks the API anything (web/src/config.ts). A static host serves the
 * built file unchanged, and the page fetches /config.json instead.
 */
export function pageWithSetting(indexHtml: string, setting: unknown): string {
  const meta = `<meta name="console-config" content="${escapeAttribute(JSON.stringify(setting))}" />`;
  const preload = /<link rel="preload" href="\/config\.json"[^>]*>/;
  return preload.test(indexHtml) ? indexHtml.replace(preload, meta) : indexHtml.replace('</head>', `${meta}\n</head>`);
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '"': '&quot;', "'": '&#39;', '<': '&lt;', '>': '&gt;' };
const escapeAttribute = (text: string) => text.replace(/[&"'<>]/g, (c) => ENTITIES[c]!);

/**
 * True when a request to a site that forwards the console API on its own origin carries no session
 * cookie: the page is signed out for sure, and shows the sign-in without asking the API (its
 * setting says `signed_out: true`). A cookie that is there may still be stale: only the API knows.
 */
export function withoutSessionCookie(cookieHeader: string | undefined): boolean {
  const names = (cookieHeader ?? '').split(';').map((pair) => pair.split('=')[0]!.trim());
  return !names.some((name) => (SESSION_COOKIE_NAMES as readonly string[]).includes(name));
}
