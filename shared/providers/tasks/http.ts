import type { Dispatcher } from 'undici';
import { safeStream } from '../../assets/safe-fetch.js';
import { isGatewayError } from '../../errors.js';
import { endSpan, startUpstreamSpan } from '../../telemetry/spans.js';
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
export async function callJson<T>(
  upstream: Upstream,
  call: JsonCall,
): Promise<{ status: number; body: T | undefined }> {
  let res: Dispatcher.ResponseData;
  const path = `${upstream.basePath}${call.path}`;
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...authHeaders(upstream),
    ...call.headers,
  };
  // A client span (a child of the job's) whose traceparent goes upstream, while tracing is on.
  const traced = startUpstreamSpan(call.method, path, headers);
  try {
    res = await upstream.pool.request({
      method: call.method,
      path,
      headers: traced?.headers ?? headers,
      body: call.body === undefined ? null : JSON.stringify(call.body),
    });
  } catch (err) {
    endSpan(traced?.span, err);
    throw new UpstreamTaskError(0, true, `upstream unreachable: ${(err as Error).message}`);
  }
  endSpan(traced?.span, undefined, res.statusCode);
  if (res.statusCode === 404) {
    await res.body.dump();
    return { status: 404, body: undefined };
  }
  if (res.statusCode >= 300) {
    await res.body.dump();
    throw new UpstreamTaskError(
      res.statusCode,
      res.statusCode === 429 || res.statusCode >= 500,
      `upstream answered ${res.statusCode}`,
    );
  }
  return { status: res.statusCode, body: (await res.body.json()) as T };
}

/** A result on another origin can be a long video; the cap still bounds what a hostile link can make a worker store. */
const RESULT_MAX_BYTES = 2 * 1024 ** 3;
const RESULT_TIMEOUT_MS = 30 * 60_000;

/**
 * Streams a result. A URL on the provider's own origin is fetched with its credentials. Any other
 * URL (a CDN link) is only the provider's word: it is fetched without them, through the safe
 * fetcher (https, public addresses only, pinned, redirects checked, at most RESULT_MAX_BYTES), as a
 * client's URL would be.
 */
export async function streamResult(upstream: Upstream, url: string): Promise<DownloadedResult> {
  const target = new URL(url, upstream.provider.base_url);
  if (target.origin !== new URL(upstream.provider.base_url).origin) {
    const fetched = await safeStream(target.href, { maxBytes: RESULT_MAX_BYTES, timeoutMs: RESULT_TIMEOUT_MS }).catch(
      (err: unknown) => {
        // A refused address stays refused; a failed fetch may work later.
        const refused = isGatewayError(err) && err.code === 'reference_url_blocked';
        throw new UpstreamTaskError(
          0,
          !refused,
          `result download ${refused ? 'refused' : 'failed'}: ${(err as Error).message}`,
        );
      },
    );
    return { body: fetched.body, contentType: fetched.contentType || 'application/octet-stream', size: fetched.size };
  }
  let res: Dispatcher.ResponseData;
  try {
    res = await upstream.pool.request({
      method: 'GET',
      path: target.pathname + target.search,
      headers: authHeaders(upstream),
    });
  } catch (err) {
    throw new UpstreamTaskError(0, true, `result unreachable: ${(err as Error).message}`);
  }
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new UpstreamTaskError(
      res.statusCode,
      res.statusCode === 429 || res.statusCode >= 500,
      `result download answered ${res.statusCode}`,
    );
  }
  const length = Number(res.headers['content-length']);
  return {
    body: res.body,
    contentType: String(res.headers['content-type'] ?? 'application/octet-stream'),
    size: Number.isFinite(length) ? length : undefined,
  };
}
