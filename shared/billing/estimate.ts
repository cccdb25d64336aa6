/**
 * The streaming-billing policy's estimate, used only when the upstream never reported usage (a
 * client that hung up, an upstream that cut the stream): about four bytes of text per token for
 * the prompt, and one token per SSE event relayed for the output (role and finish events included).
 */
export function estimateTokensFromBytes(bytes: number): number {
  return Math.ceil(bytes / 4);
}
