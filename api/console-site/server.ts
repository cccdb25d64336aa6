import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeGracefully, listen } from '../../shared/lifecycle/http-server.js';
import { captchaOrigins, siteCaptcha, type SiteCaptcha } from './captcha.js';
import type { ConsoleSiteSetting } from './setting.js';
import { consoleCsp, securityHeaders } from './csp.js';
import { pageWithSetting, withoutSessionCookie } from './page.js';
import { send, serveStatic } from './static-files.js';

/** dist/console, built from web/ by `npm run build` (this file runs from dist/api/console-site/). */
export const CONSOLE_BUILD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../console');

/**
 * What the gateway answers here: the console API, and the signed links it hands out with this
 * origin (PUBLIC_BASE_URL unset): dataset downloads and asset files (`/v1/files/`), upload PUTs
 * (`/v1/uploads/`). The links carry their own signature; nothing else of the gateway is reachable.
 */
const FORWARDED = ['/api/v1/', '/v1/files/', '/v1/uploads/'];

export interface ConsoleSiteOptions {
  port: number;
  host: string;
  /** The gateway's request handler: /api/v1/* is handed to it in this process, unchanged. */
  gateway: RequestListener;
  /** Where API keys are used, shown by the site (config.json `gateway_url`); read per request. */
  gatewayUrl: string | (() => string);
  /** The password-reset page's captcha (./captcha.ts); none = resets cannot be asked for here. */
  captcha?: SiteCaptcha | undefined;
  /** The built site; default dist/console. */
  root?: string;
  /**
   * Where the site's pages call the console API (config.json `api_base`); default this site's
   * own origin, which forwards it. Another site's origin makes the pages sign in with bearer
   * tokens (docs/reference/console-api.md, "Cross-site console").
   */
  apiBase?: string | (() => string | undefined) | undefined;
  /** The object store's origin when browsers upload straight to it (S3 presigned PUTs): the CSP allows it. */
  uploadOrigin?: string | undefined;
}

export interface ConsoleSite {
  server: Server;
  /** `http://localhost:<port>`. */
  url: string;
  close(): Promise<void>;
}

/**
 * The console site on its own origin: the built single-page app, its runtime setting
 * (`/config.json`), and the console API forwarded to the gateway so that the session cookie is
 * this origin's own. The request is handed to the gateway's handler as it came — same socket,
 * same Host — so the gateway sees the browser's address (sign-in limits, sessions list) and
 * the site's origin as its own (CSRF check, cookie, passkey origin, provider callback).
 */
export async function startConsoleSite(options: ConsoleSiteOptions): Promise<ConsoleSite> {
  const root = path.resolve(options.root ?? CONSOLE_BUILD_DIR);
  if (!existsSync(path.join(root, 'index.html')))
    throw new Error(`the console site is not built (${root}/index.html missing): run npm run build`);
  // Read per request, as gatewayUrl: a test's gateway starts after the site whose origin it names.
  const apiBase = () => {
    const base = typeof options.apiBase === 'function' ? options.apiBase() : options.apiBase;
    return base ? new URL(base).origin : '';
  };
  const headersFor = (api: string) =>
    securityHeaders(
      consoleCsp({
        apiOrigin: api || undefined,
        uploadOrigin: options.uploadOrigin,
        extraOrigins: captchaOrigins(options.captcha),
      }),
    );
  const gatewayUrl = typeof options.gatewayUrl === 'string' ? () => options.gatewayUrl as string : options.gatewayUrl;
  // The built document, read once; every page carries the setting (./page.ts) besides /config.json.
  const indexHtml = await readFile(path.join(root, 'index.html'), 'utf8');
  const setting = (api: string) => ({ api_base: api, gateway_url: gatewayUrl(), captcha: options.captcha ?? null });
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (FORWARDED.some((prefix) => url.startsWith(prefix)) || url === '/api/v1') return options.gateway(req, res);
    const api = apiBase();
    const headers = headersFor(api);
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'method not allowed', { ...headers, allow: 'GET, HEAD' });
    if (url === '/config.json' || url.startsWith('/config.json?'))
      return send(res, 200, JSON.stringify(setting(api)), headers, 'application/json; charset=utf-8');
    // The session cookie is this origin's own only when the API is forwarded here (api_base '').
    const page = (request: IncomingMessage) =>
      pageWithSetting(indexHtml, {
        ...setting(api),
        ...(api === '' && withoutSessionCookie(request.headers.cookie) && { signed_out: true }),
      });
    serveStatic(root, req, res, headers, page).catch(() => {
      if (!res.headersSent) send(res, 500, 'the file could not be read', headers);
      else res.destroy();
    });
  });
  await listen(server, options.port, options.host);
  const port = (server.address() as { port: number }).port;
  return { server, url: `http://localhost:${port}`, close: () => closeGracefully(server) };
}

/**
 * `npm start`'s console site: beside the API, handing /api/v1 to the API server's own handler.
 * A port that is taken costs the site, not the gateway: one line says so and the start goes on.
 */
export async function startConsoleSiteOrWarn(
  setting: ConsoleSiteSetting | undefined,
  api: { server: Server; url: string },
  options: {
    host: string;
    gatewayUrl?: string | undefined;
    captchaTestToken?: string | undefined;
    uploadOrigin?: string | undefined;
  },
): Promise<ConsoleSite | undefined> {
  if (!setting) return undefined;
  const gateway = api.server.listeners('request')[0] as RequestListener;
  try {
    const captcha = siteCaptcha(setting.captcha, options.captchaTestToken);
    return await startConsoleSite({
      port: setting.port,
      host: options.host,
      gateway,
      gatewayUrl: options.gatewayUrl ?? api.url,
      captcha,
      uploadOrigin: options.uploadOrigin,
    });
  } catch (err) {
    const reason =
      (err as NodeJS.ErrnoException).code === 'EADDRINUSE' ? `port ${setting.port} is in use` : (err as Error).message;
    process.stderr.write(
      `console: not started — ${reason} (set CONSOLE_PORT to another port, or 0 for no console site)\n`,
    );
    return undefined;
  }
}
