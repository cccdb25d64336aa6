import { AT, one, page } from './common.js';
import { KEY } from './console-keys.js';

/** The console's routing presets and prompt templates. */

const preset = {
  slug: 'cheap-first',
  model: '@preset/cheap-first',
  models: ['gpt-4o-mini', 'claude-haiku'],
  strategy: 'weighted',
  weights: [3, 1],
  cache_ttl_seconds: null,
  preferred_providers: null,
  created_at: AT,
  updated_at: AT,
};

export const PRESET_CREATE_EXAMPLES = {
  request: { slug: 'cheap-first', models: ['gpt-4o-mini', 'claude-haiku'], strategy: 'weighted', weights: [3, 1] },
  response: one(preset, 'req_7a1b2c'),
};
export const PRESET_UPDATE_EXAMPLES = {
  request: { strategy: 'ordered', weights: null },
  response: one({ ...preset, strategy: 'ordered', weights: null }, 'req_7a1b2d'),
};
export const PRESETS_RESPONSE = page(preset, 'req_7a1b30');
export const PRESET_RESPONSE = one(preset, 'req_7a1b31');

const template = {
  id: '9b2d4f6a-1c3e-4a5b-8d7f-0e1a2b3c4d5e',
  name: 'tone',
  versions: [
    {
      id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
      label: 'pirate',
      text: 'Answer as {{persona|a pirate}}.',
      weight: 1,
      variables: ['persona'],
      defaults: { persona: 'a pirate' },
    },
  ],
  key_ids: [KEY.id],
  created_at: AT,
  updated_at: AT,
};

export const TEMPLATE_CREATE_EXAMPLES = {
  request: {
    name: 'tone',
    versions: [{ label: 'pirate', text: 'Answer as {{persona|a pirate}}.', weight: 1 }],
    key_ids: [KEY.id],
  },
  response: one(template, 'req_7a1b2e'),
};
export const TEMPLATE_UPDATE_EXAMPLES = {
  request: { key_ids: [] },
  response: one({ ...template, key_ids: [] }, 'req_7a1b2f'),
};
export const TEMPLATES_RESPONSE = page(template, 'req_7a1b32');
export const TEMPLATE_RESPONSE = one(template, 'req_7a1b33');
