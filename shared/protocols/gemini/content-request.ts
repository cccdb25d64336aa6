import { z } from 'zod';

const part = z.looseObject({});
const tokenCap = z.number().int().positive().max(10_000_000).optional();
// Either spelling inside either spelling of the config; candidateCount: answers to generate, each
// reserved and charged (the API's own range).
const generationConfig = z.looseObject({
  maxOutputTokens: tokenCap,
  max_output_tokens: tokenCap,
  candidateCount: z.number().int().min(1).max(8).optional(),
  candidate_count: z.number().int().min(1).max(8).optional(),
});

/**
 * A generateContent request as the gateway validates it (camelCase, as the SDK sends it, or
 * snake_case, as the REST docs show it); unknown fields pass through to a generateContent upstream.
 */
export const contentRequestSchema = z.looseObject({
  contents: z
    .array(
      z.looseObject({
        role: z.enum(['user', 'model', 'function'], { error: 'one of user, model' }).optional(),
        parts: z.array(part, { error: 'required array' }).min(1),
      }),
      { error: 'required array' },
    )
    .min(1),
  generationConfig: generationConfig.optional(),
  generation_config: generationConfig.optional(),
  tools: z.array(z.looseObject({})).optional(),
});

export type ContentRequest = z.infer<typeof contentRequestSchema>;

/** `:countTokens` takes `contents`, or a whole `generateContentRequest`. */
export const countContentTokensSchema = z.looseObject({
  contents: contentRequestSchema.shape.contents.optional(),
  generateContentRequest: z.looseObject({ contents: contentRequestSchema.shape.contents }).optional(),
});
