/**
 * The captcha widget the console's password-reset page shows (the gateway checks its token with
 * CAPTCHA_VERIFY_URL). The three providers share one browser API — `render(element, {sitekey,
 * callback})` after their script loads — and differ in the script and the origins the CSP allows.
 */
export const CAPTCHA_PROVIDERS = {
  turnstile: {
    script: 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit',
    global: 'turnstile',
    origins: ['https://challenges.cloudflare.com'],
  },
  hcaptcha: {
    script: 'https://js.hcaptcha.com/1/api.js?render=explicit',
    global: 'hcaptcha',
    origins: ['https://hcaptcha.com', 'https://*.hcaptcha.com'],
  },
  recaptcha: {
    script: 'https://www.google.com/recaptcha/api.js?render=explicit',
    global: 'grecaptcha',
    origins: ['https://www.google.com', 'https://www.gstatic.com'],
  },
} as const;

export type CaptchaProvider = keyof typeof CAPTCHA_PROVIDERS;

/**
 * What the site's config.json says about the captcha: a provider's widget with its site key, or
 * in development (the gateway's CAPTCHA_TEST_TOKEN, refused in production) that token, sent as is.
 */
export type SiteCaptcha =
  | { provider: CaptchaProvider; site_key: string; script: string; global: string }
  | { provider: 'test'; token: string };

export function siteCaptcha(
  setting: { provider: CaptchaProvider; siteKey: string } | undefined,
  testToken: string | undefined,
): SiteCaptcha | undefined {
  if (setting)
    return {
      provider: setting.provider,
      site_key: setting.siteKey,
      script: CAPTCHA_PROVIDERS[setting.provider].script,
      global: CAPTCHA_PROVIDERS[setting.provider].global,
    };
  return testToken ? { provider: 'test', token: testToken } : undefined;
}

export const captchaOrigins = (captcha: SiteCaptcha | undefined): string[] =>
  captcha && captcha.provider !== 'test' ? [...CAPTCHA_PROVIDERS[captcha.provider].origins] : [];
