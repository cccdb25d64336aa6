/**
 * CONSOLE_PORT: the port `npm start` serves the console site on (default 8081; 0 = off). Read
 * before the gateway's config because, when the site is on and CONSOLE_ORIGIN is unset, the
 * console's origin — CORS, the CSRF check, the passkey origin — defaults to the site's.
 */
import { CAPTCHA_PROVIDERS, type CaptchaProvider } from './captcha.js';

export interface ConsoleSiteSetting {
  port: number;
  /** CONSOLE_CAPTCHA_PROVIDER and CONSOLE_CAPTCHA_SITE_KEY: the widget of the password-reset page. */
  captcha: { provider: CaptchaProvider; siteKey: string } | undefined;
  /** `http://localhost:<port>`: passkeys need a host name, and localhost is not 127.0.0.1's site. */
  origin: string;
}

export const DEFAULT_CONSOLE_PORT = 8081;

export function readConsoleSiteSetting(env: NodeJS.ProcessEnv): ConsoleSiteSetting | undefined | { error: string } {
  const raw = env.CONSOLE_PORT?.trim() || String(DEFAULT_CONSOLE_PORT);
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535)
    return { error: `CONSOLE_PORT: must be a port number (0 = no console site), got '${raw}'` };
  const port = Number(raw);
  const provider = env.CONSOLE_CAPTCHA_PROVIDER?.trim() ?? '';
  const siteKey = env.CONSOLE_CAPTCHA_SITE_KEY?.trim() ?? '';
  if (provider && !(provider in CAPTCHA_PROVIDERS))
    return {
      error: `CONSOLE_CAPTCHA_PROVIDER: one of ${Object.keys(CAPTCHA_PROVIDERS).join(', ')}, got '${provider}'`,
    };
  if (Boolean(provider) !== Boolean(siteKey))
    return { error: 'CONSOLE_CAPTCHA_PROVIDER and CONSOLE_CAPTCHA_SITE_KEY: set both or neither' };
  const captcha = provider ? { provider: provider as CaptchaProvider, siteKey } : undefined;
  return port === 0 ? undefined : { port, origin: `http://localhost:${port}`, captcha };
}

/** Reads CONSOLE_PORT and, when the site is on, defaults CONSOLE_ORIGIN to it; exits on a bad value. */
export function consoleSiteSettingOrExit(env: NodeJS.ProcessEnv = process.env): ConsoleSiteSetting | undefined {
  const setting = readConsoleSiteSetting(env);
  if (setting && 'error' in setting) {
    process.stderr.write(`invalid environment:\n  ${setting.error}\n`);
    process.exit(1);
  }
  if (setting) env.CONSOLE_ORIGIN ||= setting.origin;
  return setting;
}
