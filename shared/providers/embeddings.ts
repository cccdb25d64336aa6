import { embeddingsBody, type EmbeddingRequest } from '../protocols/embeddings/codec.js';
import type { ChatProtocol } from '../protocols/canonical/types.js';
import type { Upstream } from './registry.js';
import { UpstreamCall } from './upstream-call.js';

/**
 * Sends an embeddings call in the upstream's protocol: chat-completions-style upstreams take
 * `POST {base_url}/embeddings`, generateContent upstreams `:batchEmbedContents` (one call for any
 * number of inputs).
 */
export function sendEmbeddings(upstream: Upstream, upstreamModel: string, request: EmbeddingRequest): UpstreamCall {
  const protocol = upstream.provider.protocol as ChatProtocol;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  const key = upstream.provider.api_key;
  let path: string;
  if (protocol === 'gemini') {
    if (key) headers['x-goog-api-key'] = key;
    const model = upstreamModel.startsWith('models/') ? upstreamModel : `models/${upstreamModel}`;
    path = `${upstream.basePath}/v1beta/${encodeURI(model)}:batchEmbedContents`;
  } else {
    if (key) headers.authorization = `Bearer ${key}`;
    path = `${upstream.basePath}/embeddings`;
  }
  return new UpstreamCall(upstream.pool, {
    method: 'POST',
    path,
    headers,
    body: embeddingsBody(protocol, request, upstreamModel),
  });
}
