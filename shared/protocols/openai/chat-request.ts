import { z } from 'zod';

const tokenCap = z.number().int().positive().max(10_000_000).nullable().optional();

/**
 * The fields of a chat request the gateway relies on; everything else passes through to the
 * upstream untouched (loose objects), so new OpenAI parameters work without a gateway release.
 */
export const chatRequestSchema = z.looseObject({
  model: z.string({ error: 'required string' }).min(1),
  messages: z
    .array(
      z.looseObject({
        role: z.string({ error: 'required string' }).min(1),
        content: z.union([z.string(), z.array(z.unknown()), z.null()]).optional(),
      }),
      { error: 'required array' },
    )
    .min(1),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  max_tokens: tokenCap,
  max_completion_tokens: tokenCap,
  /** Answers to generate, each reserved and charged (OpenAI's own range). */
  n: z.number().int().min(1).max(128).nullable().optional(),
});

export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** The most output the call may produce: the request's cap, else the model's. */
export function maxOutputTokens(req: ChatRequest, modelCap: number): number {
  return req.max_completion_tokens ?? req.max_tokens ?? modelCap;
}
