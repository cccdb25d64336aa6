/**
 * The streaming-billing policy's estimate, used only when the upstream never reported usage (a
 * client that hung up, an upstream that cut the stream): about four bytes of text per token for
 * the prompt, and one token per content event relayed for the output.
 */
export function estimateTokensFromBytes(bytes: number): number {
  return Math.ceil(bytes / 4);
}
