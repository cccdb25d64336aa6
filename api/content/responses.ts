import { z } from 'zod';
import { whole } from '../openapi/response-fields.js';

/** A model as the generateContent protocol lists it: chat models generate, embedding models embed. */
const contentModel = z.strictObject({
  name: z.string(),
  baseModelId: z.string(),
  version: z.string(),
  displayName: z.string(),
  description: z.string(),
  outputTokenLimit: whole,
  supportedGenerationMethods: z.array(
    z.enum(['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents']),
  ),
});

export const CONTENT_MODEL_RESPONSES = {
  one: contentModel,
  list: z.strictObject({ models: z.array(contentModel) }),
};
