import type { TokenUsage } from './pricing.js';

/** About four bytes of text per token: the estimate of a prompt, or of the text a stream relayed. */
export function estimateTokensFromBytes(bytes: number): number {
  return Math.ceil(bytes / 4);
}

/** What a stream's scanner knows when the call is settled (shared/providers/stream-scanner.ts). */
export interface StreamTally {
  /** The latest usage the upstream reported, interim or final. */
  usage: TokenUsage | undefined;
  usageFinal: boolean;
  /** Bytes of text relayed to the client (content, reasoning, tool arguments). */
  textBytes: number;
}

/**
 * The streaming-billing policy. A stream is charged the upstream's final count when it sent one
 * (message_delta, the usage chunk, the finishing frame). Otherwise — the client hung up, the
 * upstream cut the stream or failed in it, or its end carried no count — it is charged an estimate
 * that cannot fall below what was relayed: output = the larger of the last count the upstream
 * reported (an opening or running one) and the relayed text's bytes ÷ 4; input = the prompt count
 * the upstream reported, else the request body's bytes ÷ 4.
 */
export function streamUsage(tally: StreamTally, promptBytes: number): { usage: TokenUsage; estimated: boolean } {
  const reported = tally.usage;
  if (reported && tally.usageFinal) return { usage: reported, estimated: false };
  return {
    usage: {
      // A prompt is never 0 tokens: a 0 is a count the upstream did not send.
      inputTokens: reported?.inputTokens || estimateTokensFromBytes(promptBytes),
      outputTokens: Math.max(reported?.outputTokens ?? 0, estimateTokensFromBytes(tally.textBytes)),
      cachedTokens: reported?.cachedTokens ?? 0,
    },
    estimated: true,
  };
}
