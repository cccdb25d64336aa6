import type { ChatProtocol } from '../protocols/canonical/types.js';
import type { Upstream } from './registry.js';
import type { StreamScanner } from './stream-scanner.js';
import type { UpstreamCall } from './upstream-call.js';
import type { TokenUsage } from '../billing/pricing.js';

/** Headers of the client's call that a same-protocol upstream needs to read the body as it was meant. */
export type ForwardedHeaders = Record<string, string>;

/**
 * One upstream text protocol: how a call is sent (path, credentials), how its whole answer's usage
 * is read, and the scanner that passes its stream through unchanged. Chosen by the catalog
 * provider's `protocol`.
 */
export interface ChatAdapter {
  readonly protocol: ChatProtocol;
  send(
    upstream: Upstream,
    upstreamModel: string,
    body: Buffer | string,
    stream: boolean,
    forwarded: ForwardedHeaders | undefined,
  ): UpstreamCall;
  /** The usage of a whole answer of this protocol (undefined when it reports none). */
  usageOf(answer: unknown): TokenUsage | undefined;
  /** A same-protocol stream: bytes pass through; `clientWantsUsage` is chat completions' include_usage. */
  scanner(clientWantsUsage: boolean): StreamScanner;
}
