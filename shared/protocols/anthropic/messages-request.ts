import { z } from 'zod';

const block = z.looseObject({ type: z.string({ error: 'required string' }).min(1) });

/**
 * A Messages request as the gateway validates it; fields it does not read pass through to a
 * Messages upstream untouched (loose objects), so new parameters work without a gateway release.
 * `max_tokens` is required, as the protocol has it.
 */
export const messagesRequestSchema = z.looseObject({
  model: z.string({ error: 'required string' }).min(1),
  messages: z
    .array(
      z.looseObject({
        role: z.enum(['user', 'assistant', 'system'], { error: 'one of user, assistant' }),
        content: z.union([z.string(), z.array(block)], { error: 'a string or an array of content blocks' }),
      }),
      { error: 'required array' },
    )
    .min(1),
  max_tokens: z.number({ error: 'required integer' }).int().nonnegative().max(10_000_000),
  system: z.union([z.string(), z.array(block)]).optional(),
  stream: z.boolean().optional(),
  tools: z.array(z.looseObject({ name: z.string({ error: 'required string' }).min(1) })).optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(2).optional(),
});

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;

/** `POST /v1/messages/count_tokens` takes the same body without the output fields. */
export const countTokensRequestSchema = messagesRequestSchema.omit({ max_tokens: true });
