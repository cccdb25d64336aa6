/**
 * The console site's Content-Security-Policy: its own scripts and styles only (no inline script,
 * no eval), requests to itself and to the console API's origin when that is another one, no
 * frames of it anywhere. `extraOrigins` are the captcha provider's (script, frame, connect).
 */
export function consoleCsp(options: { apiOrigin?: string | undefined; extraOrigins?: string[] } = {}): string {
  const extra = options.extraOrigins ?? [];
  const connect = ["'self'", ...(options.apiOrigin ? [options.apiOrigin] : []), ...extra];
  return [
    "default-src 'none'",
    `script-src 'self'${extra.map((o) => ` ${o}`).join('')}`,
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src ${connect.join(' ')}`,
    ...(extra.length ? [`frame-src ${extra.join(' ')}`] : []),
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers of every answer of the site (the CSP only matters on documents, but costs nothing elsewhere). */
export function securityHeaders(csp: string): Record<string, string> {
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
  };
}
