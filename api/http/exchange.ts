import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, Middleware } from 'koa';
import { acceptClientRequestId, newRequestId } from '../../shared/ids.js';
import { noteOf } from '../../shared/telemetry/request-note.js';

/**
 * One HTTP call answered straight on node:http. The hottest route (chat completions) runs on this
 * rather than on Koa: its middleware chain, context objects and delegates cost more per call than
 * the whole bare proxy does (docs/decisions/0001-hot-path-on-node-http.md). Everything else stays on
 * Koa; the route is the same code whichever way a request arrives (`fromKoa`).
 */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** What the client sees in X-Request-Id: its own when it sent a valid one. */
  readonly requestId: string;
  /** Made by the gateway for every call (usage records and charges key on it). */
  readonly callId: string;
  readonly ip: string;
}

/** A call that did not go through Koa: the request id and client address, as Koa would give them. */
export function exchangeOf(req: IncomingMessage, res: ServerResponse, proxyHops: number): Exchange {
  // The request's note made the id (traces and the access log know the call by it).
  const callId = noteOf(req)?.callId ?? newRequestId();
  const requestId = acceptClientRequestId(headerOf(req, 'x-request-id')) ?? callId;
  res.setHeader('X-Request-Id', requestId);
  res.setHeader('Request-Id', requestId); // where the Messages SDK reads it
  return { req, res, requestId, callId, ip: clientIp(req, proxyHops) };
}

/** The same call, reached through Koa's router (its middleware already set the request id). */
export function exchangeFromKoa(ctx: Context): Exchange {
  ctx.respond = false;
  return {
    req: ctx.req,
    res: ctx.res,
    requestId: ctx.state.requestId as string,
    callId: ctx.state.callId as string,
    ip: ctx.ip,
  };
}

export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value || undefined;
}

/**
 * The client's address behind `hops` trusted proxies (TRUST_PROXY_HOPS), each of which appends the
 * address it was reached from to X-Forwarded-For: the client is the hops-th entry from the right.
 * Entries further left were written by the client itself and are never trusted; with fewer entries
 * than hops, the left-most is the best there is. 0 hops: the socket's peer.
 */
export function clientIp(req: IncomingMessage, hops: number): string {
  if (hops > 0) {
    const entries = (headerOf(req, 'x-forwarded-for') ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    if (entries.length > 0) return entries[Math.max(0, entries.length - hops)]!;
  }
  return req.socket.remoteAddress ?? '';
}

/** Koa's `ctx.ip` by the same rule as the node:http routes (Koa's own would take the left-most). */
export function clientAddress(hops: number): Middleware {
  return (ctx, next) => {
    ctx.request.ip = clientIp(ctx.req, hops);
    return next();
  };
}

/** Writes a whole JSON answer (headers and body in one write). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: Buffer | string,
  headers?: Record<string, string>,
): void {
  if (headers) for (const name in headers) res.setHeader(name, headers[name]!);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
