import { z } from 'zod';

/**
 * generateContent's answer (`GenerateContentResponse`) as the API reference documents it, parsed
 * strictly (see messages.ts): the API omits what it does not set, and sends no `null`.
 */
const int = z.number().int().nonnegative();

const part = z
  .strictObject({
    text: z.string().optional(),
    thought: z.boolean().optional(),
    thoughtSignature: z.string().optional(),
    functionCall: z
      .strictObject({
        id: z.string().optional(),
        name: z.string().min(1),
        args: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
    inlineData: z.strictObject({ mimeType: z.string(), data: z.string() }).optional(),
  })
  .refine((p) => [p.text, p.functionCall, p.inlineData].filter((v) => v !== undefined).length === 1, {
    message: 'a part holds exactly one of text, functionCall, inlineData',
  });

const finishReason = z.enum([
  'FINISH_REASON_UNSPECIFIED',
  'STOP',
  'MAX_TOKENS',
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'OTHER',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'MALFORMED_FUNCTION_CALL',
  'IMAGE_SAFETY',
  'UNEXPECTED_TOOL_CALL',
]);

const modalityCount = z.array(z.strictObject({ modality: z.string(), tokenCount: int }));

export const usageMetadata = z.strictObject({
  promptTokenCount: int.optional(),
  candidatesTokenCount: int.optional(),
  totalTokenCount: int.optional(),
  cachedContentTokenCount: int.optional(),
  thoughtsTokenCount: int.optional(),
  toolUsePromptTokenCount: int.optional(),
  promptTokensDetails: modalityCount.optional(),
  candidatesTokensDetails: modalityCount.optional(),
  cacheTokensDetails: modalityCount.optional(),
  toolUsePromptTokensDetails: modalityCount.optional(),
});

export const generateContentResponse = z.strictObject({
  candidates: z
    .array(
      z.strictObject({
        content: z.strictObject({ role: z.literal('model'), parts: z.array(part) }).optional(),
        finishReason: finishReason.optional(),
        finishMessage: z.string().optional(),
        index: int.optional(),
        safetyRatings: z.array(z.unknown()).optional(),
        citationMetadata: z.unknown().optional(),
        tokenCount: int.optional(),
        groundingMetadata: z.unknown().optional(),
        avgLogprobs: z.number().optional(),
        logprobsResult: z.unknown().optional(),
      }),
    )
    .optional(),
  promptFeedback: z.unknown().optional(),
  usageMetadata: usageMetadata.optional(),
  modelVersion: z.string().optional(),
  responseId: z.string().optional(),
  createTime: z.string().optional(),
});
export type GenerateContentResponse = z.infer<typeof generateContentResponse>;

/** A streamed answer: every frame a GenerateContentResponse; the last one says why it finished. */
export function geminiOrderViolation(frames: GenerateContentResponse[]): string | undefined {
  const finishedAt = frames.findIndex((f) => f.candidates?.some((c) => c.finishReason !== undefined));
  if (finishedAt === -1) return 'no frame carries a finishReason';
  if (finishedAt !== frames.length - 1)
    return `frame ${finishedAt} finished but ${frames.length - 1 - finishedAt} frames follow`;
  return undefined;
}
