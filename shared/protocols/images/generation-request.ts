import { z } from 'zod';

/** OpenAI-style JSON image generation; fields beyond these pass through to the upstream. */
export const imageGenerationSchema = z.looseObject({
  model: z.string({ error: 'required string' }).min(1),
  prompt: z.string({ error: 'required string' }).min(1),
  n: z.number().int().min(1).max(10).default(1),
  size: z.string().min(1).default('1024x1024'),
});

export type ImageGenerationRequest = z.infer<typeof imageGenerationSchema>;
