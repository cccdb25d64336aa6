import type { Upstream } from '../registry.js';
import { UpstreamCall } from '../upstream-call.js';

export interface ImageCall {
  operation: 'generations' | 'edits';
  /** The client's body, validated, its references already links the upstream can fetch. */
  body: Record<string, unknown>;
}

/** `POST {base_url}/images/generations` or `/images/edits` (JSON) on a chat-completions-style upstream. */
export function sendImages(upstream: Upstream, upstreamModel: string, call: ImageCall): UpstreamCall {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (upstream.provider.api_key) headers.authorization = `Bearer ${upstream.provider.api_key}`;
  const body = JSON.stringify(Object.assign({}, call.body, { model: upstreamModel }));
  return new UpstreamCall(upstream.pool, {
    method: 'POST',
    path: `${upstream.basePath}/images/${call.operation}`,
    headers,
    body,
  });
}
