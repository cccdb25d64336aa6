import type { IncomingMessage } from 'node:http';
import { generateContentText, modelOfPath } from '../../shared/generation/surfaces/generate-content.js';
import type { Surface } from '../generation/surface.js';
import { headerOf } from '../http/exchange.js';

export { modelOfPath };

/** The key of a generateContent call: `x-vendor-api-key` (the spec), `x-goog-api-key` (the SDK) or `?key=` (the REST docs). */
export function contentCredential(req: IncomingMessage): string | undefined {
  const header = headerOf(req, 'x-vendor-api-key') ?? headerOf(req, 'x-goog-api-key');
  if (header?.trim()) return header.trim();
  const query = req.url?.indexOf('?') ?? -1;
  if (query === -1) return undefined;
  return new URLSearchParams(req.url!.slice(query + 1)).get('key')?.trim() || undefined;
}

/** `POST /native-content/v1beta/models/{model}:generateContent` and `:streamGenerateContent` (and the same under `/v1beta`). */
export const generateContentSurface: Surface = {
  ...generateContentText,
  id: 'generate-content',
  credential: contentCredential,
  credentialHint: 'send it in the x-vendor-api-key or x-goog-api-key header, or as ?key=',
  forwardedHeaders: () => undefined,
};
