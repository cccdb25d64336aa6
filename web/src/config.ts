/**
 * The site's runtime setting, `config.json` beside index.html (or the same in the page): read at
 * load, so one build serves any gateway. `api_base`: the origin of the console API ('' = this site's own origin,
 * which forwards /api/v1); `gateway_url`: where API keys are used (shown to the user, and the
 * API reference link).
 */
export interface SiteConfig {
  api_base: string;
  /**
   * How the pages prove the session: `cookie` (the HttpOnly session cookie, sent only where the
   * API is same-site with the site) or `bearer` (short-lived tokens issued for the session,
   * src/api/bearer.ts). Default: `cookie` when the API is this origin or on this host name,
   * otherwise `bearer`; a deployment on sibling subdomains (same site) may set `cookie`.
   */
  session: 'cookie' | 'bearer';
  gateway_url: string;
  /**
   * Set by npm start's site (in the page) when the document came without a session cookie: no
   * session to look up, so the sign-in shows without asking the API. Absent = ask.
   */
  signed_out: boolean;
  /**
   * The password-reset page's captcha: a provider's widget (`script` loaded on that page only,
   * `global` its render API), or in development the gateway's test token; null = no resets here.
   */
  captcha:
    | { provider: string; site_key: string; script: string; global: string }
    | { provider: 'test'; token: string }
    | null;
}

/**
 * The setting from the page itself (`<meta name="console-config">`, put there by npm start's site:
 * no round trip before the first API call), else from config.json (a static host).
 */
export async function loadConfig(): Promise<SiteConfig> {
  const inline = document.querySelector<HTMLMetaElement>('meta[name="console-config"]')?.content;
  const raw = (inline ? JSON.parse(inline) : await fetchConfig()) as Partial<SiteConfig>;
  const apiBase = (raw.api_base ?? '').replace(/\/+$/, '');
  return {
    api_base: apiBase,
    session: raw.session === 'cookie' || raw.session === 'bearer' ? raw.session : sessionFor(apiBase),
    gateway_url: (raw.gateway_url ?? '').replace(/\/+$/, ''),
    signed_out: raw.signed_out === true,
    captcha: raw.captcha ?? null,
  };
}

async function fetchConfig(): Promise<unknown> {
  // Same request as index.html's preload (mode, credentials), so the preloaded answer is used.
  const res = await fetch('/config.json');
  if (!res.ok) throw new Error(`config.json: ${res.status}`);
  return res.json();
}

/** Same host name and scheme: the cookie reaches the API. Anything else may be another site. */
function sessionFor(apiBase: string): SiteConfig['session'] {
  if (!apiBase) return 'cookie';
  const api = new URL(apiBase, location.href);
  return api.hostname === location.hostname && api.protocol === location.protocol ? 'cookie' : 'bearer';
}
