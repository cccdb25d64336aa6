import type { IncomingMessage } from 'node:http';
import { structuredPromptTokens } from '../../shared/billing/prompt-tokens.js';
import { contentRequestSchema } from '../../shared/protocols/gemini/content-request.js';
import { field } from '../../shared/protocols/gemini/to-canonical.js';
import { parseOrThrow } from '../../shared/validation.js';
import { headerOf } from '../http/exchange.js';
import type { Surface } from '../generation/surface.js';

/** The key of a generateContent call: `x-vendor-api-key` (the spec), `x-goog-api-key` (the SDK) or `?key=` (the REST docs). */
export function contentCredential(req: IncomingMessage): string | undefined {
  const header = headerOf(req, 'x-vendor-api-key') ?? headerOf(req, 'x-goog-api-key');
  if (header?.trim()) return header.trim();
  const query = req.url?.indexOf('?') ?? -1;
  if (query === -1) return undefined;
  return new URLSearchParams(req.url!.slice(query + 1)).get('key')?.trim() || undefined;
}

/** A model as the (decoded) path names it: `models/` is the protocol's own prefix, not part of our model id. */
export function modelOfPath(model: string): string {
  return model.startsWith('models/') ? model.slice(7) : model;
}

/** `POST /native-content/v1beta/models/{model}:generateContent` and `:streamGenerateContent` (and the same under `/v1beta`). */
export const generateContentSurface: Surface = {
  id: 'generate-content',
  protocol: 'gemini',
  credential: contentCredential,
  credentialHint: 'send it in the x-vendor-api-key or x-goog-api-key header, or as ?key=',
  modelInBody: false,
  parse(body, params) {
    const request = parseOrThrow(contentRequestSchema, body);
    const config = field(request, 'generationConfig') as Record<string, unknown> | undefined;
    const max = config ? field(config, 'maxOutputTokens') : undefined;
    return {
      body: request,
      model: modelOfPath(params.model ?? ''),
      stream: params.stream === true,
      maxTokens: typeof max === 'number' ? max : undefined,
      clientWantsUsage: true,
      provider: (request as { provider?: unknown }).provider,
      promptTokens: (model, bytes) =>
        structuredPromptTokens(request.contents, [field(request, 'systemInstruction'), request.tools], model, bytes),
    };
  },
  withSystemPrompt(body, text) {
    const key =
      body.system_instruction !== undefined && body.systemInstruction === undefined
        ? 'system_instruction'
        : 'systemInstruction';
    const current = body[key] as { parts?: unknown[] } | undefined;
    const parts = Array.isArray(current?.parts) ? [{ text }, ...current.parts] : [{ text }];
    return Object.assign({}, body, { [key]: Object.assign({}, current, { parts }) });
  },
  forwardedHeaders: () => undefined,
};
