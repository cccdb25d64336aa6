import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'koa';
import { acceptClientRequestId, newRequestId } from '../../shared/ids.js';

/**
 * One HTTP call answered straight on node:http. The hottest route (chat completions) runs on this
 * rather than on Koa: its middleware chain, context objects and delegates cost more per call than
 * the whole bare proxy does (see bench/README.md). Everything else stays on Koa; the route is the
 * same code whichever way a request arrives (`fromKoa`).
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
export function exchangeOf(req: IncomingMessage, res: ServerResponse, trustProxy: boolean): Exchange {
  const callId = newRequestId();
  const requestId = acceptClientRequestId(headerOf(req, 'x-request-id')) ?? callId;
  res.setHeader('X-Request-Id', requestId);
  res.setHeader('Request-Id', requestId); // where the Messages SDK reads it
  return { req, res, requestId, callId, ip: clientIp(req, trustProxy) };
}

/** The same call, reached through Koa's router (its middleware already set the request id). */
export function exchangeFromKoa(ctx: Context): Exchange {
  ctx.respond = false;
  return { req: ctx.req, res: ctx.res, requestId: ctx.state.requestId as string, callId: ctx.state.callId as string, ip: ctx.ip };
}

export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value || undefined;
}

// Koa's rule: behind a trusted proxy the first X-Forwarded-For address is the client.
function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = headerOf(req, 'x-forwarded-for');
    const first = forwarded?.split(',')[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? '';
}

/** Writes a whole JSON answer (headers and body in one write). */
export function sendJson(res: ServerResponse, status: number, body: Buffer | string, headers?: Record<string, string>): void {
  if (headers) for (const name in headers) res.setHeader(name, headers[name]!);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
