import { messagesText } from '../../shared/generation/surfaces/messages.js';
import type { Surface } from '../generation/surface.js';
import { bearerSecret } from '../http/credential.js';
import { headerOf } from '../http/exchange.js';

/** The key of a Messages call: `x-api-key` (the protocol's own) or `Authorization: Bearer` (what the SDK sends). */
export function messagesCredential(req: Parameters<Surface['credential']>[0]): string | undefined {
  return headerOf(req, 'x-api-key')?.trim() || bearerSecret(headerOf(req, 'authorization'));
}

/** `POST /native-messages/v1/messages` (and the older `/v1/messages`). */
export const messagesSurface: Surface = {
  ...messagesText,
  id: 'messages',
  credential: messagesCredential,
  credentialHint: 'send it in the x-api-key header or as Authorization: Bearer <key>',
  forwardedHeaders(req) {
    const version = headerOf(req, 'anthropic-version');
    const beta = headerOf(req, 'anthropic-beta');
    if (!version && !beta) return undefined;
    const headers: Record<string, string> = {};
    if (version) headers['anthropic-version'] = version;
    if (beta) headers['anthropic-beta'] = beta;
    return headers;
  },
};
