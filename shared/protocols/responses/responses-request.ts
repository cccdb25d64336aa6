import { z } from 'zod';

const tokenCap = z.number().int().positive().max(10_000_000).nullable().optional();

/**
 * A Responses request as the gateway validates it; the rest of its fields are read (or refused by
 * name) by the translation, since every Responses call is translated (see to-canonical.ts).
 */
export const responsesRequestSchema = z.looseObject({
  model: z.string({ error: 'required string' }).min(1),
  input: z.union(
    [
      z.string().min(1, 'must not be empty'),
      z.array(z.looseObject({}), { error: 'a string or an array of input items' }).min(1, 'must not be empty'),
    ],
    {
      error: 'a string or an array of input items',
    },
  ),
  instructions: z.string().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  max_output_tokens: tokenCap,
  tools: z.array(z.looseObject({ type: z.string({ error: 'required string' }) })).optional(),
  store: z.boolean().nullable().optional(),
  previous_response_id: z.string().nullable().optional(),
  background: z.boolean().nullable().optional(),
});

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;
