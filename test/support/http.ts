// Raw HTTP against a test gateway: the tests need the exact status, headers and bytes on the wire.

export type Message = { role: string; content: string };

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

export function chatRequest(model: string, text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, messages: [{ role: 'user', content: text }], ...extra };
}

/** POST /v1/chat/completions with a bearer key (omitted when `key` is undefined); reads the whole body. */
export async function postChat(
  url: string,
  key: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

/** Parses an OpenAI-format error and checks its shape: exactly message, type, param and code. */
export function openAiError(res: RawResponse): OpenAiErrorBody['error'] {
  const body = JSON.parse(res.text) as OpenAiErrorBody;
  if (!body.error || Object.keys(body.error).sort().join() !== 'code,message,param,type') {
    throw new Error(`not an OpenAI error body: ${res.text}`);
  }
  if (typeof body.error.message !== 'string' || body.error.message === '' || typeof body.error.type !== 'string') {
    throw new Error(`malformed OpenAI error: ${res.text}`);
  }
  return body.error;
}

/** The `data:` payloads of an SSE body, in order; `[DONE]` stays a string. */
export function sseData(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice('data: '.length))
    .map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as unknown)));
}

export interface TimedEvent {
  data: string;
  /** performance.now() when the event's last byte arrived. */
  at: number;
}

/**
 * Reads an SSE body event by event as bytes arrive. `stopWhen` may end the read early (the caller
 * then aborts the request); a transport error ends it with `error` set.
 */
export async function readEvents(
  res: Response,
  stopWhen: (events: TimedEvent[]) => boolean = () => false,
): Promise<{ events: TimedEvent[]; text: string; error: unknown }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: TimedEvent[] = [];
  let text = '';
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { events, text, error: undefined };
      const chunk = decoder.decode(value, { stream: true });
      text += chunk;
      buffer += chunk;
      const at = performance.now();
      for (let i = buffer.indexOf('\n\n'); i !== -1; i = buffer.indexOf('\n\n')) {
        const event = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        if (event.startsWith('data: ')) events.push({ data: event.slice(6), at });
      }
      if (stopWhen(events)) return { events, text, error: undefined };
    }
  } catch (error) {
    return { events, text, error };
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `everyMs` until it returns true; returns the milliseconds it took, or throws after `timeoutMs`. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 20,
): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (await check()) return performance.now() - start;
    if (performance.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}
