import { z } from 'zod';

/** Chat completions' answers as the API reference documents them, parsed strictly (see messages.ts). */
const int = z.number().int().nonnegative();

export const chatUsage = z.strictObject({
  prompt_tokens: int,
  completion_tokens: int,
  total_tokens: int,
  prompt_tokens_details: z.strictObject({ cached_tokens: int.optional(), audio_tokens: int.optional() }).optional(),
  completion_tokens_details: z
    .strictObject({
      reasoning_tokens: int.optional(),
      audio_tokens: int.optional(),
      accepted_prediction_tokens: int.optional(),
      rejected_prediction_tokens: int.optional(),
    })
    .optional(),
});

const finishReason = z.enum(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);
const logprobs = z.strictObject({ content: z.array(z.unknown()).nullable(), refusal: z.array(z.unknown()).nullable() });

const toolCall = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string().min(1), arguments: z.string() }),
});

export const chatCompletion = z.strictObject({
  id: z.string().min(1),
  object: z.literal('chat.completion'),
  created: int,
  model: z.string().min(1),
  choices: z.array(
    z.strictObject({
      index: int,
      message: z.strictObject({
        role: z.literal('assistant'),
        content: z.string().nullable(),
        refusal: z.string().nullable().optional(),
        tool_calls: z.array(toolCall).optional(),
        annotations: z.array(z.unknown()).optional(),
      }),
      logprobs: logprobs.nullable(),
      finish_reason: finishReason,
    }),
  ),
  usage: chatUsage.optional(),
  system_fingerprint: z.string().nullable().optional(),
  service_tier: z.string().nullable().optional(),
});

export const chatCompletionChunk = z.strictObject({
  id: z.string().min(1),
  object: z.literal('chat.completion.chunk'),
  created: int,
  model: z.string().min(1),
  choices: z.array(
    z.strictObject({
      index: int,
      delta: z.strictObject({
        role: z.literal('assistant').optional(),
        content: z.string().nullable().optional(),
        refusal: z.string().nullable().optional(),
        tool_calls: z
          .array(
            z.strictObject({
              index: int,
              id: z.string().min(1).optional(),
              type: z.literal('function').optional(),
              function: z
                .strictObject({ name: z.string().min(1).optional(), arguments: z.string().optional() })
                .optional(),
            }),
          )
          .optional(),
      }),
      logprobs: logprobs.nullable().optional(),
      finish_reason: finishReason.nullable(),
    }),
  ),
  usage: chatUsage.nullable().optional(),
  system_fingerprint: z.string().nullable().optional(),
  service_tier: z.string().nullable().optional(),
  obfuscation: z.string().optional(),
});
export type ChatCompletionChunk = z.infer<typeof chatCompletionChunk>;

/**
 * Chat completions' stream order: every chunk of one id; a tool call's first fragment carries its
 * id, type and name; each choice finishes once, and nothing but the usage chunk (no choices) comes
 * after the finishing chunks. The `[DONE]` marker is checked by the caller.
 */
export function chatOrderViolation(chunks: ChatCompletionChunk[]): string | undefined {
  const finished = new Set<number>();
  const startedCalls = new Set<string>();
  let usageSeen = false;
  for (const [i, chunk] of chunks.entries()) {
    if (chunk.id !== chunks[0]!.id) return `chunk ${i}: id ${chunk.id} differs from ${chunks[0]!.id}`;
    if (usageSeen) return `chunk ${i}: a chunk after the usage chunk`;
    if (chunk.choices.length === 0) {
      if (!chunk.usage) return `chunk ${i}: no choices and no usage`;
      usageSeen = true;
      continue;
    }
    for (const choice of chunk.choices) {
      if (finished.has(choice.index)) return `chunk ${i}: choice ${choice.index} continues after it finished`;
      for (const call of choice.delta.tool_calls ?? []) {
        const key = `${choice.index}/${call.index}`;
        if (!startedCalls.has(key)) {
          if (!call.id || call.type !== 'function' || !call.function?.name)
            return `chunk ${i}: tool call ${key} starts without id, type and name`;
          startedCalls.add(key);
        }
      }
      if (choice.finish_reason) finished.add(choice.index);
    }
  }
  return finished.size > 0 ? undefined : 'no choice finished';
}
