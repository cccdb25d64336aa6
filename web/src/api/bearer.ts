import type { Middleware } from 'openapi-fetch';

const TOKEN_PATH = '/api/v1/auth/session/token';
/** Asks a sign-in for a short-lived bearer token instead of the cookie (docs/reference/console-api.md). */
const CREDENTIAL_HEADER = 'x-console-session';
// Renewed this long before it expires, so a request never leaves with a token about to die.
const RENEW_BEFORE_MS = 2 * 60_000;

interface Issued {
  token: string;
  expires_at: string;
}

/**
 * The credential of a console whose API is on another site: its requests carry no session cookie
 * (SameSite=Lax), so every call sends `Authorization: Bearer` with a short-lived token issued for
 * the session (15 minutes), renewed with POST /api/v1/auth/session/token while the page is open.
 * Its sign-ins say `X-Console-Session: bearer`, so they answer that short token, never the
 * long-lived session token; it lives in this object only — never in storage or a URL, and out of
 * the answers the pages see — so a reload signs out.
 */
export class BearerSession {
  private token: string | undefined;
  private expiresAt = 0;
  /** False once a renewal cannot outlive the token it replaces (the session itself is ending). */
  private renewable = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private renewing: Promise<void> | undefined;

  constructor(private readonly base: string) {}

  /** The header of a request made outside the typed client (a file download); undefined when signed out. */
  async authorization(): Promise<string | undefined> {
    if (this.token && this.renewable && this.expiresAt - Date.now() < RENEW_BEFORE_MS) await this.renew();
    return this.token && `Bearer ${this.token}`;
  }

  readonly middleware: Middleware = {
    onRequest: async ({ request }) => {
      const header = await this.authorization();
      if (header) request.headers.set('authorization', header);
      // Only a sign-in reads it; any POST may be one (a provider hand-over after the page lost its token).
      if (request.method === 'POST') request.headers.set(CREDENTIAL_HEADER, 'bearer');
      return request;
    },
    onResponse: async ({ request, response, schemaPath }) => {
      if (schemaPath === '/api/v1/auth/logout' || (response.status === 401 && request.headers.has('authorization')))
        this.clear();
      if (request.method !== 'POST' || !response.ok || !response.headers.get('content-type')?.includes('json'))
        return response;
      const body = (await response.clone().json()) as { data?: { token?: unknown; expires_at?: unknown } } | null;
      const { token, expires_at } = body?.data ?? {};
      if (typeof token !== 'string' || typeof expires_at !== 'string') return response;
      // A sign-in: keep its bearer token here, out of the page's hands.
      if (token.startsWith('gwb_')) this.adopt({ token, expires_at });
      const { token: _dropped, ...data } = body!.data!;
      const headers = new Headers(response.headers);
      headers.delete('content-length');
      return new Response(JSON.stringify({ ...body, data }), { status: response.status, headers });
    },
  };

  private async renew(): Promise<void> {
    if (!this.token) return;
    this.renewing ??= this.issue(this.token).finally(() => {
      this.renewing = undefined;
    });
    await this.renewing;
  }

  private async issue(credential: string): Promise<void> {
    const res = await fetch(`${this.base}${TOKEN_PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credential}` },
      credentials: 'omit',
    }).catch(() => undefined);
    if (!res?.ok) {
      // A network failure keeps the token for the next try; a refusal means the session is over.
      if (res) this.clear();
      return;
    }
    this.adopt(((await res.json()) as { data: Issued }).data);
  }

  private adopt(issued: Issued): void {
    const expiresAt = Date.parse(issued.expires_at);
    // The session's end caps a token: one that ends no later than the last will not be renewed.
    this.renewable = expiresAt > this.expiresAt && expiresAt - Date.now() > RENEW_BEFORE_MS;
    this.token = issued.token;
    this.expiresAt = expiresAt;
    clearTimeout(this.timer);
    if (this.renewable) this.timer = setTimeout(() => void this.renew(), expiresAt - Date.now() - RENEW_BEFORE_MS);
  }

  private clear(): void {
    clearTimeout(this.timer);
    this.token = undefined;
    this.expiresAt = 0;
    this.renewable = false;
  }
}
