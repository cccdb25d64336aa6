export interface ConsoleCspOptions {
  /** The console API's origin when it is not the site's (its signed asset links are images too). */
  apiOrigin?: string | undefined;
  /** Object storage's origin when uploads go straight to it (S3 presigned PUTs). */
  uploadOrigin?: string | undefined;
  /** The captcha provider's (script, frame, connect). */
  extraOrigins?: string[];
}

/**
 * The console site's Content-Security-Policy: its own scripts and styles only (no inline script,
 * no eval), requests to itself, to the console API's origin when that is another one and to the
 * object store a browser uploads to, no frames of it anywhere.
 */
export function consoleCsp(options: ConsoleCspOptions = {}): string {
  const extra = options.extraOrigins ?? [];
  const api = options.apiOrigin ? [options.apiOrigin] : [];
  const upload = options.uploadOrigin ? [options.uploadOrigin] : [];
  const connect = unique(["'self'", ...api, ...upload, ...extra]);
  return [
    "default-src 'none'",
    `script-src 'self'${extra.map((o) => ` ${o}`).join('')}`,
    "style-src 'self'",
    `img-src ${unique(["'self'", 'data:', 'blob:', ...api]).join(' ')}`,
    "font-src 'self'",
    `connect-src ${connect.join(' ')}`,
    ...(extra.length ? [`frame-src ${extra.join(' ')}`] : []),
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const unique = (list: string[]) => [...new Set(list)];

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
