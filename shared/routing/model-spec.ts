import { GatewayError } from '../errors.js';

export const AUTO_STRATEGIES = ['quality', 'cost', 'latency'] as const;
export type AutoStrategy = (typeof AUTO_STRATEGIES)[number];

/** What a request's `model` asks for: one model, automatic choice, or a saved preset. */
export type ModelSpec =
  | { kind: 'model'; id: string }
  | { kind: 'auto'; strategy: AutoStrategy }
  | { kind: 'preset'; slug: string };

export const PRESET_SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
const PRESET_PREFIX = '@preset/';

/** `auto` = `auto:quality`; `auto:<x>` with another suffix, or a malformed preset slug, is a 400. */
export function parseModelSpec(model: string, param = 'model'): ModelSpec {
  if (model === 'auto') return { kind: 'auto', strategy: 'quality' };
  if (model.startsWith('auto:')) {
    const strategy = model.slice(5);
    if (!(AUTO_STRATEGIES as readonly string[]).includes(strategy)) {
      throw new GatewayError(
        'invalid_request',
        400,
        `unknown automatic routing '${model}': use auto, auto:quality, auto:cost or auto:latency`,
        { param },
      );
    }
    return { kind: 'auto', strategy: strategy as AutoStrategy };
  }
  if (model.startsWith(PRESET_PREFIX)) {
    const slug = model.slice(PRESET_PREFIX.length);
    if (!PRESET_SLUG.test(slug))
      throw new GatewayError(
        'invalid_request',
        400,
        `'${model}' is not a preset name: @preset/ then lower-case letters, digits and '-'`,
        { param },
      );
    return { kind: 'preset', slug };
  }
  return { kind: 'model', id: model };
}
