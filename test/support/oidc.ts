import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestOidc {
  /** The issuer URL, for OIDC_<NAME>_ISSUER. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The provider's users: login → e-mail (verified unless listed in `unverified`). */
  accounts: Map<string, string>;
  unverified: Set<string>;
  /** Starts the real provider once the gateway's callback URL is known. */
  register(redirectUris: string[]): void;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect provider (oidc-provider) on loopback, with its development login and
 * consent pages, which `Browser.signInAtProvider` fills in as a user would.
 */
export async function startOidc(): Promise<TestOidc> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => (handler ? handler(req, res) : res.writeHead(503).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, string>();
  const unverified = new Set<string>();
  const clientId = 'gateway-console';
  const clientSecret = 'a-client-secret-for-tests-only-0123456789';
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    unverified,
    register(redirectUris) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: redirectUris,
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_post',
          },
        ],
        claims: { openid: ['sub'], email: ['email', 'email_verified'] },
        findAccount: (_ctx, sub) => ({
          accountId: sub,
          claims: () => ({ sub, email: accounts.get(sub), email_verified: !unverified.has(sub) }),
        }),
        cookies: { keys: ['oidc-test-cookie-key'] },
        features: { devInteractions: { enabled: true } },
      });
      provider.on('server_error', () => {});
      handler = provider.callback();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A browser as far as redirects, cookies (per origin) and the provider's two forms go. */
export class Browser {
  private readonly jar = new Map<string, Map<string, string>>();

  /** Cookies this browser holds for an origin, as a `Cookie` header. */
  cookieHeader(origin: string): string {
    return [...(this.jar.get(origin) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const origin = new URL(url).origin;
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader(origin);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const jar = this.jar.get(origin) ?? new Map<string, string>();
      const expired = /expires=Thu, 01 Jan 1970/i.test(line) || pair.slice(eq + 1) === '';
      if (expired) jar.delete(pair.slice(0, eq));
      else jar.set(pair.slice(0, eq), pair.slice(eq + 1));
      this.jar.set(origin, jar);
    }
    return res;
  }

  /** A console API call as a page of `origin` makes it: JSON, with this browser's cookies → status and body (any JSON: the tests' expectations are the type check). */
  async consoleCall(
    url: string,
    method: string,
    body?: unknown,
    origin = new URL(url).origin,
  ): Promise<{ status: number; json: any }> {
    const headers: Record<string, string> = { origin, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.request(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  }

  /**
   * Follows redirects from `url`, signing in at the provider as `login` and consenting on its pages,
   * until a redirect leads to a URL `stop` accepts (which is not fetched) → that URL.
   */
  async signInAtProvider(url: string, login: string, stop: (u: URL) => boolean): Promise<URL> {
    let next = new URL(url);
    let form: URLSearchParams | undefined;
    for (let hop = 0; hop < 20; hop++) {
      if (stop(next)) return next;
      const res = form
        ? await this.request(next.href, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: form.toString(),
          })
        : await this.request(next.href);
      form = undefined;
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        next = new URL(location, next);
        continue;
      }
      const html = await res.text();
      if (res.status !== 200 || !next.pathname.startsWith('/interaction/'))
        throw new Error(`unexpected ${res.status} at ${next.href}: ${html.slice(0, 300)}`);
      form = html.includes('name="login"')
        ? new URLSearchParams({ prompt: 'login', login, password: 'any' })
        : new URLSearchParams({ prompt: 'consent' });
    }
    throw new Error('too many redirects');
  }
}
