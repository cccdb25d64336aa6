import { UNIX } from './common.js';

/** The model lists: OpenAI's (`/v1/models`, with the account's presets) and generateContent's. */

const model = {
  id: 'gpt-4o-mini',
  object: 'model',
  created: 1735689600,
  owned_by: 'openai',
  endpoints: ['chat/completions'],
};

export const MODEL_RESPONSE = model;

export const MODELS_RESPONSE = {
  object: 'list',
  data: [
    model,
    { ...model, id: 'text-embedding-3-small', endpoints: ['embeddings'] },
    // The account's presets follow the catalog's models.
    { id: '@preset/cheap-first', object: 'model', created: UNIX, owned_by: 'preset' },
  ],
};

const contentModel = {
  name: 'models/gemini-flash',
  baseModelId: 'gemini-flash',
  version: '1',
  displayName: 'gemini-flash',
  description: 'gemini-flash (served by the gateway; owned by google)',
  outputTokenLimit: 8192,
  supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
};

export const CONTENT_MODEL_RESPONSE = contentModel;

export const CONTENT_MODELS_RESPONSE = {
  models: [
    contentModel,
    {
      ...contentModel,
      name: 'models/text-embedding',
      baseModelId: 'text-embedding',
      displayName: 'text-embedding',
      description: 'text-embedding (served by the gateway; owned by google)',
      outputTokenLimit: 4096,
      supportedGenerationMethods: ['embedContent', 'batchEmbedContents'],
    },
  ],
};
