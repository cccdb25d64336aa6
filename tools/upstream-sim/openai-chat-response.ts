// The chat.completion and chat.completion.chunk bodies, shaped like OpenAI's own.
import type { ChatPlan, SimToolCall } from './chat-plan.js';
import { planText, planTextChunks } from './chat-plan.js';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/** What one response will contain, decided before anything is written. */
export interface CompletionPlan {
  id: string;
  created: number;
  model: string;
  /** Per choice. */
  completionTokens: number;
  /** `n`: every choice says the same, and each is counted in the usage. */
  choices: number;
  finishReason: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  usage: ChatUsage;
  text: string;
  /** The text in stream chunks, one token each. */
  chunks: string[];
  toolCall: SimToolCall | undefined;
}

const SYSTEM_FINGERPRINT = 'fp_upstream_sim';

export function planCompletion(model: string, chat: ChatPlan, choices = 1): CompletionPlan {
  const completion = chat.completionTokens * choices;
  return {
    // A counter rather than random bytes: unique per process, cheap and reproducible.
    id: `chatcmpl-sim${chat.seq.toString(36)}`,
    created: Math.floor(Date.now() / 1000),
    model,
    completionTokens: chat.completionTokens,
    choices,
    finishReason: chat.toolCall ? 'tool_calls' : chat.limited ? 'length' : 'stop',
    usage: {
      prompt_tokens: chat.promptTokens,
      completion_tokens: completion,
      total_tokens: chat.promptTokens + completion,
      prompt_tokens_details: { cached_tokens: chat.cachedTokens },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
    text: planText(chat),
    chunks: planTextChunks(chat),
    toolCall: chat.toolCall,
  };
}

export function completionBody(plan: CompletionPlan): object {
  return {
    id: plan.id,
    object: 'chat.completion',
    created: plan.created,
    model: plan.model,
    choices: Array.from({ length: plan.choices }, (_, index) => ({
      index,
      message: plan.toolCall
        ? {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [
              {
                id: plan.toolCall.id,
                type: 'function',
                function: { name: plan.toolCall.name, arguments: plan.toolCall.arguments },
              },
            ],
          }
        : { role: 'assistant', content: plan.text, refusal: null },
      logprobs: null,
      finish_reason: plan.finishReason,
    })),
    usage: plan.usage,
    system_fingerprint: SYSTEM_FINGERPRINT,
  };
}

export interface ChunkOptions {
  /** include_usage was asked for: every chunk then carries `usage` (null until the end). */
  includeUsage: boolean;
  delta?: object;
  finishReason?: CompletionPlan['finishReason'];
  usage?: ChatUsage;
  /** The trailing usage chunk has no choices at all. */
  noChoices?: boolean;
  /** Which choice the delta belongs to (`n` > 1). Default 0. */
  index?: number;
}

/** One `data: ...` SSE event. */
export function chunkEvent(plan: CompletionPlan, options: ChunkOptions): string {
  const chunk: Record<string, unknown> = {
    id: plan.id,
    object: 'chat.completion.chunk',
    created: plan.created,
    model: plan.model,
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices: options.noChoices
      ? []
      : [
          {
            index: options.index ?? 0,
            delta: options.delta ?? {},
            logprobs: null,
            finish_reason: options.finishReason ?? null,
          },
        ],
  };
  if (options.includeUsage) chunk.usage = options.usage ?? null;
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

export const DONE_EVENT = 'data: [DONE]\n\n';
