import type { Env } from '../config.js';

/** One OpenID Connect sign-in provider, from `OIDC_<NAME>_*`. */
export interface OidcProviderConfig {
  /** The name in routes (`/oauth/{provider}/…`) and in `OIDC_PROVIDERS`. */
  name: string;
  displayName: string;
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  scopes: string;
}

export interface ConsoleConfig {
  sessionTtlHours: number;
  /** The console site's origin (differs from the gateway's): CORS and the CSRF Origin check. */
  origin: string | undefined;
  signInIpLimit: number;
  lock: { threshold: number; windowMs: number; durationMs: number };
  codes: { ttlMs: number; cooldownMs: number };
  captcha: { verifyUrl: string | undefined; secret: string | undefined; testToken: string | undefined };
  oidc: OidcProviderConfig[];
  webauthn: { rpId: string; rpName: string; origin: string };
}

const envName = (provider: string) => provider.toUpperCase().replace(/-/g, '_');
const providerNames = (list: string) => [
  ...new Set(
    list
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean),
  ),
];

/** What the schema cannot say about the console's variables (the per-provider ones are dynamic). */
export function consoleEnvIssues(e: Env, source: NodeJS.ProcessEnv): string[] {
  const issues: string[] = [];
  for (const name of providerNames(e.OIDC_PROVIDERS)) {
    const prefix = `OIDC_${envName(name)}_`;
    for (const field of ['ISSUER', 'CLIENT_ID'])
      if (!source[prefix + field]) issues.push(`${prefix}${field}: required because OIDC_PROVIDERS names '${name}'`);
    const issuer = source[`${prefix}ISSUER`];
    if (issuer && !URL.canParse(issuer)) issues.push(`${prefix}ISSUER: must be a URL`);
  }
  if (e.CAPTCHA_VERIFY_URL && !e.CAPTCHA_SECRET) issues.push('CAPTCHA_SECRET: required with CAPTCHA_VERIFY_URL');
  if (e.NODE_ENV === 'production' && e.CAPTCHA_TEST_TOKEN)
    issues.push('CAPTCHA_TEST_TOKEN: a development setting; configure CAPTCHA_VERIFY_URL in production');
  return issues;
}

export function consoleConfig(e: Env, source: NodeJS.ProcessEnv): ConsoleConfig {
  const consoleOrigin = e.CONSOLE_ORIGIN ? new URL(e.CONSOLE_ORIGIN).origin : undefined;
  const webauthnOrigin = e.WEBAUTHN_ORIGIN
    ? new URL(e.WEBAUTHN_ORIGIN).origin
    : (consoleOrigin ?? `http://localhost:${e.PORT}`);
  return {
    sessionTtlHours: e.SESSION_TTL_HOURS,
    origin: consoleOrigin,
    signInIpLimit: e.SIGNIN_IP_LIMIT,
    lock: {
      threshold: e.ACCOUNT_LOCK_THRESHOLD,
      windowMs: e.ACCOUNT_LOCK_WINDOW_SECONDS * 1000,
      durationMs: e.ACCOUNT_LOCK_SECONDS * 1000,
    },
    codes: { ttlMs: e.VERIFICATION_CODE_TTL_SECONDS * 1000, cooldownMs: e.VERIFICATION_COOLDOWN_SECONDS * 1000 },
    captcha: { verifyUrl: e.CAPTCHA_VERIFY_URL, secret: e.CAPTCHA_SECRET, testToken: e.CAPTCHA_TEST_TOKEN },
    oidc: providerNames(e.OIDC_PROVIDERS).map((name) => {
      const v = (field: string) => source[`OIDC_${envName(name)}_${field}`] || undefined;
      return {
        name,
        displayName: v('DISPLAY_NAME') ?? name,
        issuer: v('ISSUER') ?? '',
        clientId: v('CLIENT_ID') ?? '',
        clientSecret: v('CLIENT_SECRET'),
        scopes: v('SCOPES') ?? 'openid email profile',
      };
    }),
    // The relying party is the console's site: its host name unless set (a passkey is bound to it).
    webauthn: {
      rpId: e.WEBAUTHN_RP_ID ?? new URL(webauthnOrigin).hostname,
      rpName: e.WEBAUTHN_RP_NAME,
      origin: webauthnOrigin,
    },
  };
}
