import type { Middleware } from 'koa';
import { acceptClientRequestId, newRequestId } from '../../shared/ids.js';
import { noteOf } from '../../shared/telemetry/request-note.js';

export interface RequestState {
  /** What the client sees in X-Request-Id: its own when it sent a valid one. */
  requestId: string;
  /** Made by the gateway for every call; unique even when clients reuse their ids (usage records and charges key on it). */
  callId: string;
}

export const requestId: Middleware = async (ctx, next) => {
  // The request's note made the id (traces and the access log know the call by it).
  const callId = noteOf(ctx.req)?.callId ?? newRequestId();
  const id = acceptClientRequestId(ctx.get('x-request-id') || undefined) ?? callId;
  ctx.state.requestId = id;
  ctx.state.callId = callId;
  ctx.set('X-Request-Id', id);
  ctx.set('Request-Id', id); // where the Messages SDK reads it
  await next();
};
