import type { Middleware } from 'openapi-fetch';

const TOKEN_PATH = '/api/v1/auth/session/token';
// Renewed this long before it expires, so a request never leaves with a token about to die.
const RENEW_BEFORE_MS = 2 * 60_000;

interface Issued {
  token: string;
  expires_at: string;
}

/**
 * The credential of a console whose API is on another site: its requests carry no session cookie
 * (SameSite=Lax), so every call sends `Authorization: Bearer` with a short-lived token issued for
 * the session (POST /api/v1/auth/session/token, 15 minutes), renewed while the page is open. The
 * session token a sign-in answers is exchanged at once and dropped from the answer the page sees;
 * the short token lives in this object only — never in storage or a URL — so a reload signs out.
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
      return request;
    },
    onResponse: async ({ request, response, schemaPath }) => {
      if (schemaPath === '/api/v1/auth/logout' || (response.status === 401 && request.headers.has('authorization')))
        this.clear();
      if (request.method !== 'POST' || !response.ok || !response.headers.get('content-type')?.includes('json'))
        return response;
      const body = (await response.clone().json()) as { data?: { token?: unknown } } | null;
      const token = body?.data?.token;
      if (typeof token !== 'string' || !token.startsWith('gws_')) return response;
      // A sign-in: trade the session token for a short one, and keep it out of the page's hands.
      await this.issue(token);
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
    const issued = ((await res.json()) as { data: Issued }).data;
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
