import { structuredPromptTokens } from '../../billing/prompt-tokens.js';
import { contentRequestSchema } from '../../protocols/gemini/content-request.js';
import { field } from '../../protocols/gemini/to-canonical.js';
import { parseOrThrow } from '../../validation.js';
import type { TextSurface } from '../text-surface.js';

/** A model as the (decoded) path names it: `models/` is the protocol's own prefix, not part of our model id. */
export function modelOfPath(model: string): string {
  return model.startsWith('models/') ? model.slice(7) : model;
}

/** The generateContent protocol: the model and whether to stream are in the path. */
export const generateContentText: TextSurface = {
  id: 'generate-content',
  protocol: 'gemini',
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
    // The parts of an instruction are read as one text (Google's, and our translation's): the
    // template is set apart from what follows as on every other surface, by a blank line.
    const parts =
      Array.isArray(current?.parts) && current.parts.length > 0
        ? [{ text: `${text}\n\n` }, ...current.parts]
        : [{ text }];
    return Object.assign({}, body, { [key]: Object.assign({}, current, { parts }) });
  },
};
