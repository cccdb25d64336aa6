import { estimateTokensFromBytes } from '../billing/estimate.js';
import type { TokenUsage } from '../billing/pricing.js';
import { GatewayError } from '../errors.js';
import { CLIENT_CODECS, CODECS } from '../protocols/codecs.js';
import { billableUsage, textOf } from '../protocols/canonical/helpers.js';
import type { CanonicalResponse } from '../protocols/canonical/types.js';
import { CHAT_ADAPTERS } from '../providers/chat-adapters.js';
import type { RoutedResponse } from '../routing/fallback.js';
import type { Passage } from './passage.js';

export interface JsonAnswer {
  /** The answer in the client's protocol: the upstream's own bytes when it speaks it. */
  body: Buffer | string;
  parsed: unknown;
  usage: TokenUsage;
  /** True when the upstream reported no usage and it was estimated from bytes. */
  estimated: boolean;
  /** The answer in canonical form, where it was translated through it (the response cache reads it). */
  canonical?: CanonicalResponse | undefined;
}

const invalidAnswer = () => new GatewayError('upstream_error', 502, 'the upstream provider sent an invalid response');

/**
 * A whole upstream answer, received, for the client: passed through on a same-protocol passage,
 * translated through the canonical form on any other; with the usage to charge.
 */
export function jsonAnswer(routed: RoutedResponse, passage: Passage, promptBytes: number, modelId: string): JsonAnswer {
  const raw = routed.response.received();
  const upstreamProtocol = passage.upstream;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalidAnswer();
  }
  let body: Buffer | string = raw;
  let usage: TokenUsage | undefined;
  let outputBytes: () => number;
  let translatedFrom: CanonicalResponse | undefined;
  if (passage.same) {
    usage = CHAT_ADAPTERS[upstreamProtocol].usageOf(parsed);
    outputBytes = () => {
      try {
        return Buffer.byteLength(textOf(CODECS[upstreamProtocol].responseToCanonical(parsed).parts));
      } catch {
        return raw.length;
      }
    };
  } else {
    let canonical: CanonicalResponse;
    try {
      canonical = CODECS[upstreamProtocol].responseToCanonical(parsed);
    } catch {
      throw invalidAnswer();
    }
    usage = canonical.usage && billableUsage(canonical.usage);
    const translated = CLIENT_CODECS[passage.client].responseFromCanonical(canonical, modelId);
    body = JSON.stringify(translated);
    parsed = translated;
    translatedFrom = canonical;
    outputBytes = () => Buffer.byteLength(textOf(canonical.parts));
  }
  const estimated = usage === undefined;
  usage ??= {
    inputTokens: estimateTokensFromBytes(promptBytes),
    outputTokens: estimateTokensFromBytes(outputBytes()),
    cachedTokens: 0,
  };
  return { body, parsed, usage, estimated, canonical: translatedFrom };
}
