import { APIConnectionError, GatewayError, StreamInterruptedError, errorFromAnswer } from './errors.js';

export const VERSION = '0.1.7';
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
// Answers worth retrying for a GET; a 429 about money (quota, balance) is not among them.
const RETRY_STATUSES = new Set([408, 429, 500, 502, 503, 504]);
const MONEY_CODES = new Set(['quota_exceeded', 'insufficient_balance']);

/** A remote origin must use HTTPS; plain HTTP is only for localhost, 127.0.0.1 and ::1. */
export function checkOrigin(url: unknown, what = 'baseURL'): URL {
  if (typeof url !== 'string' || url === '') throw new TypeError(`${what} must be a non-empty URL string`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`${what} must be an http(s) URL, got ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new TypeError(`${what} must be an http(s) URL, got ${JSON.stringify(url)}`);
  if (parsed.protocol === 'http:' && !LOOPBACK.has(parsed.hostname)) {
    throw new TypeError(
      `${what} must use https (plain http only for localhost, 127.0.0.1 and ::1): ${JSON.stringify(url)}`,
    );
  }
  return parsed;
}

export interface RetryOptions {
  /** Retries of a GET after the first try; 0 turns retries off. Default 2. */
  maxRetries?: number;
  /** First backoff, ms; doubles each time, with full jitter. Default 500. */
  initialDelayMs?: number;
  /** Cap on a backoff and on an honoured Retry-After, ms. Default 8000. */
  maxDelayMs?: number;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  requestID: string | undefined;
}

export interface CallOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  const seconds = value === null ? NaN : Number(value);
  return Number.isFinite(seconds) ? seconds : undefined;
}

/** Parses a JSON answer; a body that is not JSON raises the library's error, never a bare SyntaxError. */
export function parseJson(answer: Answer): unknown {
  if (answer.text === '') return {};
  try {
    return JSON.parse(answer.text);
  } catch {
    throw new GatewayError(`the gateway answered ${answer.status} with a body that is not JSON`, {
      status: answer.status,
      code: 'invalid_response',
      ...(answer.requestID !== undefined && { requestID: answer.requestID }),
    });
  }
}

/** Turns an error answer of any of the gateway's protocols into the client's error. */
export function errorOf(status: number, headers: Headers, text: string, requestID: string | undefined): GatewayError {
  if (status >= 300 && status < 400) {
    return new GatewayError(
      `the gateway answered a redirect (${status} to ${JSON.stringify(headers.get('location'))}); redirects are refused`,
      {
        status,
        code: 'redirect_refused',
        ...(requestID !== undefined && { requestID }),
      },
    );
  }
  let parsed: unknown;
  let message = `HTTP ${status}`;
  let code: string | undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    if (text) message = `HTTP ${status}: ${text.slice(0, 200)}`;
  }
  if (parsed && typeof parsed === 'object') {
    const body = parsed as Record<string, unknown>;
    const err = body.error;
    if (err && typeof err === 'object') {
      const e = err as Record<string, unknown>;
      if (typeof e.message === 'string') message = e.message;
      if (typeof e.code === 'string') code = e.code;
      else {
        // The generative-content shape: a numeric code, ours as the ErrorInfo reason.
        for (const detail of Array.isArray(e.details) ? e.details : []) {
          if (detail && typeof detail.reason === 'string') code = String(detail.reason).toLowerCase();
        }
        if (code === undefined && typeof e.type === 'string') code = e.type;
      }
    } else {
      if (typeof body.message === 'string') message = body.message;
      if (typeof body.error_code === 'string') code = body.error_code;
    }
    if (requestID === undefined && typeof body.request_id === 'string') requestID = body.request_id;
  }
  return errorFromAnswer(status, code, message, requestID, parsed, retryAfterSeconds(headers));
}

export class Transport {
  readonly origin: URL;
  private readonly retry: Required<RetryOptions>;

  constructor(
    baseURL: string,
    private readonly timeoutMs: number,
    retry: RetryOptions,
  ) {
    this.origin = checkOrigin(baseURL);
    this.retry = {
      maxRetries: retry.maxRetries ?? 2,
      initialDelayMs: retry.initialDelayMs ?? 500,
      maxDelayMs: retry.maxDelayMs ?? 8000,
    };
    if (!Number.isInteger(this.retry.maxRetries) || this.retry.maxRetries < 0)
      throw new TypeError('maxRetries must be an integer ≥ 0');
  }

  url(path: string, query?: CallOptions['query']): string {
    const url = new URL(this.origin.pathname.replace(/\/$/, '') + path, this.origin);
    for (const [name, value] of Object.entries(query ?? {}))
      if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  /** One call; a GET is retried on failed connections and 408/429/5xx, nothing else ever is. */
  async request(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const retries = method === 'GET' ? this.retry.maxRetries : 0;
    for (let attempt = 0; ; attempt++) {
      let answer: Answer;
      try {
        answer = await this.exchange(method, this.url(path, options.query), options);
      } catch (err) {
        if (attempt >= retries) throw err;
        await sleep(this.backoff(attempt, undefined));
        continue;
      }
      if (attempt < retries && RETRY_STATUSES.has(answer.status) && !aboutMoney(answer)) {
        await sleep(this.backoff(attempt, retryAfterSeconds(answer.headers)));
        continue;
      }
      if (answer.status >= 300) throw errorOf(answer.status, answer.headers, answer.text, answer.requestID);
      return answer;
    }
  }

  /** A streamed answer; never retried (the call may already be paid). */
  async stream(
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<{ body: AsyncIterable<Uint8Array>; headers: Headers; requestID: string | undefined }> {
    const response = await this.send(
      'POST',
      this.url(path),
      { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      JSON.stringify(body),
      false,
    );
    const requestID = response.headers.get('x-request-id') ?? undefined;
    if (response.status >= 300)
      throw errorOf(response.status, response.headers, await response.text().catch(() => ''), requestID);
    if (!response.body)
      throw new StreamInterruptedError('the stream has no body', {
        code: 'stream_interrupted',
        ...(requestID !== undefined && { requestID }),
      });
    return { body: response.body as unknown as AsyncIterable<Uint8Array>, headers: response.headers, requestID };
  }

  /** The storage PUT of an upload: only the headers the reservation names, never the API key. */
  async put(url: string, data: Uint8Array, headers: Record<string, string>): Promise<void> {
    checkOrigin(url, 'upload_url');
    const response = await this.send('PUT', url, headers, data, true);
    const text = await response.text().catch(() => '');
    if (response.status >= 300)
      throw errorOf(response.status, response.headers, text, response.headers.get('x-request-id') ?? undefined);
  }

  private async exchange(method: string, url: string, options: CallOptions): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await this.send(method, url, headers, body, true);
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      throw new APIConnectionError(`the answer broke off: ${(err as Error).message}`, {
        status: response.status,
        ...requestIdOf(response),
      });
    }
    return {
      status: response.status,
      headers: response.headers,
      text,
      requestID: response.headers.get('x-request-id') ?? undefined,
    };
  }

  private async send(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: string | Uint8Array | undefined,
    whole: boolean,
  ): Promise<Response> {
    const signal = whole ? AbortSignal.timeout(this.timeoutMs) : undefined;
    try {
      return await fetch(url, {
        method,
        headers: { 'user-agent': `gateway-client-typescript/${VERSION}`, ...headers },
        ...(body !== undefined && { body }),
        redirect: 'manual',
        ...(signal && { signal }),
      });
    } catch (err) {
      const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
      throw new APIConnectionError(`connection to ${new URL(url).host} failed: ${cause}`);
    }
  }

  private backoff(attempt: number, retryAfter: number | undefined): number {
    if (retryAfter !== undefined) return Math.min(Math.max(retryAfter * 1000, 0), this.retry.maxDelayMs);
    return Math.random() * Math.min(this.retry.maxDelayMs, this.retry.initialDelayMs * 2 ** attempt);
  }
}

function requestIdOf(response: Response): { requestID?: string } {
  const id = response.headers.get('x-request-id');
  return id === null ? {} : { requestID: id };
}

function aboutMoney(answer: Answer): boolean {
  if (answer.status !== 429) return false;
  try {
    const code = (JSON.parse(answer.text) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' && MONEY_CODES.has(code);
  } catch {
    return false;
  }
}
