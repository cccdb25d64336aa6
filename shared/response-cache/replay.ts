import type { TokenUsage } from '../billing/pricing.js';
import { CLIENT_CODECS } from '../protocols/codecs.js';
import type { CanonicalResponse, CanonicalUsage, ClientProtocol } from '../protocols/canonical/types.js';

/**
 * A cached answer as the client protocol's stream: the events of its text and tool calls, then
 * the closing frames (finish reason, the original usage, the terminal marker) as `end`, sent once
 * the hit is settled, as a live stream's are (relay-stream.ts).
 */
export function replayStream(
  protocol: ClientProtocol,
  entry: { response: CanonicalResponse; usage: TokenUsage },
  modelId: string,
  clientWantsUsage: boolean,
): { events: Buffer; end: string } {
  const { response, usage } = entry;
  const encoder = CLIENT_CODECS[protocol].streamEncoder({
    model: modelId,
    clientWantsUsage,
    promptTokens: usage.inputTokens,
  });
  let out = encoder.event({ type: 'start', id: response.id, model: modelId });
  let index = 0;
  for (const part of response.parts) {
    if (part.type === 'text') out += encoder.event({ type: 'text', text: part.text });
    else if (part.type === 'tool_call') {
      out += encoder.event({ type: 'tool_call_start', index, id: part.id, name: part.name });
      out += encoder.event({ type: 'tool_call_args', index, fragment: part.arguments });
      index++;
    }
  }
  out += encoder.event({ type: 'usage', usage: canonicalUsage(usage), final: true });
  out += encoder.event({ type: 'finish', stopReason: response.stopReason });
  return { events: Buffer.from(out), end: encoder.end(response.stopReason, canonicalUsage(usage)) };
}

/** The usage billing read (TokenUsage), as the canonical form carries it for an answer's encoders. */
export function canonicalUsage(usage: TokenUsage): CanonicalUsage {
  return {
    input: usage.inputTokens,
    cacheRead: usage.cachedTokens,
    cacheWrite: 0,
    output: usage.outputTokens,
    reasoning: 0,
  };
}
