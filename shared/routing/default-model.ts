import type { ApiKeyContext } from '../keys/api-key.js';

/**
 * A request that names no model runs on the key's default preset (console or `--preset`): the body
 * gets `model: "@preset/<slug>"` before it is validated, so every later step sees one model field.
 * Without a default preset the body is left as it is (and its missing model answers 400).
 */
export function withDefaultModel(body: Record<string, unknown>, key: ApiKeyContext): Record<string, unknown> {
  if (!key.defaultPreset || (body.model !== undefined && body.model !== '')) return body;
  return Object.assign({}, body, { model: `@preset/${key.defaultPreset}` });
}
