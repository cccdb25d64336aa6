import { request, type Dispatcher } from 'undici';
import type { Upstream } from '../registry.js';
import { UpstreamTaskError, type DownloadedResult } from './task-provider.js';

export interface JsonCall {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

function authHeaders(upstream: Upstream): Record<string, string> {
  return upstream.provider.api_key ? { authorization: `Bearer ${upstream.provider.api_key}` } : {};
}

/** One JSON request to a task upstream; non-2xx becomes an UpstreamTaskError (its body never leaks). */
export async function callJson<T>(upstream: Upstream, call: JsonCall): Promise<{ status: number; body: T | undefined }> {
  let res: Dispatcher.ResponseData;
  try {
    res = await upstream.pool.request({
      method: call.method,
      path: `${upstream.basePath}${call.path}`,
      headers: {
        accept: 'application/json',
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...authHeaders(upstream),
        ...call.headers,
      },
      body: call.body === undefined ? null : JSON.stringify(call.body),
    });
  } catch (err) {
    throw new UpstreamTaskError(0, true, `upstream unreachable: ${(err as Error).message}`);
  }
  if (res.statusCode === 404) {
    await res.body.dump();
    return { status: 404, body: undefined };
  }
  if (res.statusCode >= 300) {
    await res.body.dump();
    throw new UpstreamTaskError(res.statusCode, res.statusCode === 429 || res.statusCode >= 500, `upstream answered ${res.statusCode}`);
  }
  return { status: res.statusCode, body: (await res.body.json()) as T };
}

/**
 * Streams a result. A URL on the provider's own origin is fetched with its credentials; any other
 * URL (a CDN link) without them.
 */
export async function streamResult(upstream: Upstream, url: string): Promise<DownloadedResult> {
  const target = new URL(url, upstream.provider.base_url);
  const sameOrigin = target.origin === new URL(upstream.provider.base_url).origin;
  let res: Dispatcher.ResponseData;
  try {
    res = sameOrigin
      ? await upstream.pool.request({ method: 'GET', path: target.pathname + target.search, headers: authHeaders(upstream) })
      : await request(target, { method: 'GET' });
  } catch (err) {
    throw new UpstreamTaskError(0, true, `result unreachable: ${(err as Error).message}`);
  }
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new UpstreamTaskError(res.statusCode, res.statusCode === 429 || res.statusCode >= 500, `result download answered ${res.statusCode}`);
  }
  const length = Number(res.headers['content-length']);
  return {
    body: res.body,
    contentType: String(res.headers['content-type'] ?? 'application/octet-stream'),
    size: Number.isFinite(length) ? length : undefined,
  };
}
