import { CHAT_ADAPTERS, isChatProtocol } from '../providers/chat-adapters.js';
import type { RouteChoice } from '../routing/plan.js';
import type { ChatProtocol, ClientProtocol } from '../protocols/canonical/types.js';

/**
 * How one route attempt carries a call: in the client's own protocol (`same`: the client's bytes
 * go up, the upstream's bytes come back), or translated through the canonical form. Decided here
 * only, once per (client, upstream) pair; the request body, the stream scanner and the whole
 * answer all read it (request-body.ts, stream-scanners.ts, json-answer.ts).
 */
export interface Passage {
  readonly client: ClientProtocol;
  readonly upstream: ChatProtocol;
  readonly same: boolean;
}

const CLIENTS: readonly ClientProtocol[] = ['openai', 'anthropic', 'gemini', 'responses'];
const UPSTREAMS = Object.keys(CHAT_ADAPTERS) as ChatProtocol[];

// Every pair made once at start: a route attempt looks its passage up and allocates nothing.
const PASSAGES = Object.fromEntries(
  CLIENTS.map((client) => [
    client,
    Object.fromEntries(
      UPSTREAMS.map((upstream) => [upstream, Object.freeze({ client, upstream, same: client === upstream })]),
    ),
  ]),
) as Record<ClientProtocol, Record<ChatProtocol, Passage>>;

/** The passage of a call from a `client` to an upstream of `protocol` (a catalog provider's). */
export function passageOf(client: ClientProtocol, protocol: string): Passage {
  if (!isChatProtocol(protocol)) throw new Error(`no text protocol '${protocol}'`);
  return PASSAGES[client][protocol];
}

/** The upstream protocols a model's routes translate the call into (each readied before admission). */
export function translationsOf(client: ClientProtocol, routes: readonly RouteChoice[]): ChatProtocol[] {
  const protocols: ChatProtocol[] = [];
  for (const route of routes) {
    const passage = passageOf(client, route.upstream.provider.protocol);
    if (!passage.same && !protocols.includes(passage.upstream)) protocols.push(passage.upstream);
  }
  return protocols;
}
