import { responsesText } from '../../shared/generation/surfaces/responses.js';
import type { Surface } from '../generation/surface.js';
import { bearerSecret } from '../http/credential.js';
import { headerOf } from '../http/exchange.js';

/** `POST /v1/responses`: OpenAI's Responses protocol over any chat model (always translated, stateless). */
export const responsesSurface: Surface = {
  ...responsesText,
  id: 'responses',
  credential: (req) => bearerSecret(headerOf(req, 'authorization')),
  credentialHint: 'send it as Authorization: Bearer <key>',
  forwardedHeaders: () => undefined,
};
