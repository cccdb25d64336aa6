import { z } from 'zod';

const text = z.string().min(1, 'must not be empty');

/** `POST /v1/embeddings`: one text or several (token arrays are not accepted: every upstream takes text). */
export const embeddingsRequestSchema = z.looseObject({
  model: z.string({ error: 'required string' }).min(1),
  input: z.union(
    [text, z.array(text, { error: 'a string or an array of strings' }).min(1, 'must not be empty').max(2048)],
    { error: 'a string or an array of strings' },
  ),
  dimensions: z.number().int().positive().max(65_536).optional(),
  encoding_format: z.enum(['float', 'base64']).optional(),
  user: z.string().optional(),
});

const content = z.looseObject(
  {
    parts: z
      .array(z.looseObject({ text: z.string({ error: 'required string' }).min(1) }), { error: 'required array' })
      .min(1),
  },
  { error: 'required object' },
);

/** `:embedContent`: one content. */
export const embedContentSchema = z.looseObject({
  content,
  outputDimensionality: z.number().int().positive().max(65_536).optional(),
  taskType: z.string().optional(),
});

/** `:batchEmbedContents`: several, each naming its model (`models/{model}`, the one in the path). */
export const batchEmbedContentsSchema = z.looseObject({
  requests: z
    .array(
      z.looseObject({
        model: z.string().optional(),
        content,
        outputDimensionality: z.number().int().positive().max(65_536).optional(),
        taskType: z.string().optional(),
      }),
      { error: 'required array' },
    )
    .min(1)
    .max(250),
});
