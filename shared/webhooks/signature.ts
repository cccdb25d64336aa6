import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** `whsec_` + 24 random bytes in base64, as Standard Webhooks (and Svix) make them. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

/** `v1,<base64 HMAC-SHA256 over "<id>.<timestamp>.<body>">`, keyed with the secret's decoded bytes. */
export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The `webhook-signature` header: one signature per live secret, space-separated (two during a rotation). */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => signPayload(secret, id, timestamp, body)).join(' ');
}
