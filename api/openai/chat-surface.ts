import { chatCompletionsText } from '../../shared/generation/surfaces/chat-completions.js';
import type { Surface } from '../generation/surface.js';
import { bearerSecret } from '../http/credential.js';
import { headerOf } from '../http/exchange.js';

/** `POST /v1/chat/completions`: the key as a bearer token, the model in the body. */
export const chatCompletionsSurface: Surface = {
  ...chatCompletionsText,
  id: 'chat-completions',
  credential: (req) => bearerSecret(headerOf(req, 'authorization')),
  credentialHint: 'send it as Authorization: Bearer <key>',
  forwardedHeaders: () => undefined,
};
