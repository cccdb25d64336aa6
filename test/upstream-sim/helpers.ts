// Raw-HTTP helpers: the fault tests need to see exactly what goes over the wire.

export interface ChatBody {
  model?: string;
  messages?: unknown[];
  stream?: boolean;
  [param: string]: unknown;
}

export function userMessage(text: string): { role: 'user'; content: string } {
  return { role: 'user', content: text };
}

export function chatBody(text: string, extra: ChatBody = {}): ChatBody {
  return { model: 'sim-model', messages: [userMessage(text)], ...extra };
}

export function postChat(baseUrl: string, body: ChatBody | string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

/** Reads a body to the end, returning what arrived and the error that stopped it, if any. */
export async function readUntilEnd(res: Response): Promise<{ text: string; error: unknown }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, error: undefined };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

/** The JSON payloads of the `data:` events of an SSE body ([DONE] left as the string). */
export function sseData(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice('data: '.length))
    .map((data) => (data === '[DONE]' ? data : JSON.parse(data)));
}
