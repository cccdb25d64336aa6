import { request } from 'undici';
import { GatewayError } from '../errors.js';
import { sameSecret } from '../same-secret.js';
import type { GatewayServices } from '../gateway/services.js';

const refused = () =>
  new GatewayError('captcha_invalid', 400, '`captcha_token` was not accepted; solve the challenge again', {
    param: 'captcha_token',
  });

/**
 * Checks a captcha token. With CAPTCHA_VERIFY_URL: the common siteverify protocol (a form-encoded
 * POST of `secret`, `response`, `remoteip` answered by JSON `{success}`), as reCAPTCHA, hCaptcha
 * and Turnstile speak it. Without: only CAPTCHA_TEST_TOKEN passes (development), and with neither
 * set every token is refused. A verifier that cannot be reached answers 503, not a pass.
 */
export async function verifyCaptcha(services: GatewayServices, token: string, remoteIp: string): Promise<void> {
  const { verifyUrl, secret, testToken } = services.config.console.captcha;
  if (!verifyUrl) {
    if (!testToken || !sameSecret(token, testToken)) throw refused();
    return;
  }
  let success = false;
  try {
    const res = await request(verifyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret: secret ?? '', response: token, remoteip: remoteIp }).toString(),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const body = (await res.body.json()) as { success?: unknown };
    success = res.statusCode === 200 && body.success === true;
  } catch (err) {
    services.log.warn({ err }, 'captcha verifier unreachable');
    throw new GatewayError('service_unavailable', 503, 'the captcha check is unavailable; try again shortly', {
      retryAfter: 5,
    });
  }
  if (!success) throw refused();
}
