import type { ObjectStore } from '../storage/object-store.js';

/** Where a logged call's prompt and completion are kept (object storage, never the usage table). */
export function contentKey(userId: string, requestId: string): string {
  return `content/${userId}/${Buffer.from(requestId).toString('base64url')}.json`;
}

/**
 * Keeps one call's prompt and completion for the account's dataset exports, when its owner turned
 * content logging on. Written after the answer went out; a failure is logged, never the call's.
 */
export function logContent(
  storage: ObjectStore,
  userId: string,
  requestId: string,
  request: unknown,
  response: unknown,
  onError: (err: Error) => void,
): void {
  const body = Buffer.from(JSON.stringify({ request, response }));
  storage.put(contentKey(userId, requestId), body, { contentType: 'application/json' }).catch(onError);
}

/** The assistant text of a relayed chat-completions stream (its `data:` events' delta contents). */
export function streamText(sse: string): string {
  let text = '';
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    try {
      const delta = (JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: unknown } }> }).choices?.[0]
        ?.delta?.content;
      if (typeof delta === 'string') text += delta;
    } catch {
      // an event split across chunks is joined before this runs; anything else is not ours to judge
    }
  }
  return text;
}

/** Collects a stream's relayed bytes for content logging, up to `limit` (what passes it is dropped). */
export function streamCollector(limit = 4 * 1024 * 1024) {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    push(chunk: Buffer) {
      if (size + chunk.length > limit) return;
      chunks.push(chunk);
      size += chunk.length;
    },
    text: () => streamText(Buffer.concat(chunks).toString('utf8')),
  };
}
