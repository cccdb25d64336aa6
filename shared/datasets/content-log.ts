import type { ObjectStore } from '../storage/object-store.js';

/** Where a logged call's prompt and completion are kept (object storage, never the usage table). */
export function contentKey(userId: string, requestId: string): string {
  return `content/${userId}/${Buffer.from(requestId).toString('base64url')}.json`;
}

/**
 * Keeps one call's prompt and completion for the account's dataset exports, when its owner turned
 * content logging on: a whole answer as the client got it, a streamed one as its transcript
 * (shared/generation/transcript.ts: text, tool calls, stop reason, on every text surface). Written
 * after the answer went out; a failure is logged, never the call's.
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
