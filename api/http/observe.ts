import { ServerResponse, type IncomingMessage, type RequestListener } from 'node:http';
import type { Socket } from 'node:net';
import type { Middleware } from 'koa';
import type { Logger } from '../../shared/log.js';
import { requestEnded, requestStarted } from '../../shared/telemetry/metrics.js';
import { closeNote, noteOf, openNote, type RequestNote } from '../../shared/telemetry/request-note.js';
import { endSpan, nameServerSpan, startServerSpan, withContext } from '../../shared/telemetry/spans.js';

/** A response that remembers when its head went out: the access log's time to first byte. */
export class TimedResponse<R extends IncomingMessage = IncomingMessage> extends ServerResponse<R> {
  headAt = 0;

  // biome-ignore lint/suspicious/noExplicitAny: ServerResponse.writeHead's overloads, passed on as they came
  override writeHead(...args: any[]): this {
    if (this.headAt === 0) this.headAt = performance.now();
    return (super.writeHead as (...a: unknown[]) => this)(...args);
  }
}

/** Wire bytes a keep-alive socket had carried when its previous response ended. */
const READ = Symbol('bytes read');
const WRITTEN = Symbol('bytes written');
type CountedSocket = Socket & { [READ]?: number; [WRITTEN]?: number };

/**
 * Wraps the API's request listener: every request gets its note (shared/telemetry/request-note.ts),
 * is counted in flight, runs in its server span's context while tracing is on, and when its
 * response is done (or its client gone) writes one access-log line at `info` unless ACCESS_LOG=false.
 * `route` names the fast path's route pattern (Koa's routes are named by `noteKoaRequest`).
 */
export function observeRequests(
  log: Logger,
  accessLog: boolean,
  handle: (req: IncomingMessage, res: ServerResponse, note: RequestNote) => void,
): RequestListener {
  // The level is fixed at start: a LOG_LEVEL above info turns the line off without building it.
  const logging = accessLog && log.isLevelEnabled('info');
  return (req, res) => {
    const note = openNote(req);
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const traced = startServerSpan(method, path, req.headers);
    if (traced) note.span = traced.span;
    requestStarted();
    const socket = req.socket as CountedSocket;
    res.once('close', () => {
      requestEnded();
      closeNote(note);
      // A response cut short by its client is recorded as usage records name it: 499.
      const status = res.writableFinished ? res.statusCode : 499;
      if (note.span) {
        if (note.route) nameServerSpan(note.span, method, note.route);
        endSpan(note.span, undefined, status);
      }
      if (logging) writeAccessLine(log, note, method, path, status, res, socket);
    });
    if (traced) withContext(traced.context, () => handle(req, res, note));
    else handle(req, res, note);
  };
}

function writeAccessLine(
  log: Logger,
  note: RequestNote,
  method: string,
  path: string,
  status: number,
  res: ServerResponse,
  socket: CountedSocket,
): void {
  const now = performance.now();
  const read = socket.bytesRead;
  const written = socket.bytesWritten;
  const headAt = (res as Partial<TimedResponse>).headAt;
  const requestId = res.getHeader('x-request-id');
  log.info(
    {
      access: true,
      request_id: typeof requestId === 'string' ? requestId : note.callId,
      call_id: note.callId,
      method,
      // The route's pattern, never the URL: a query string may carry a key (`?key=` on Gemini's).
      route: note.route ?? null,
      // Only for a request no route took (404s, probes): the path without its query.
      path: note.route ? undefined : path,
      status,
      duration_ms: round(now - note.startedAt),
      ttfb_ms: headAt ? round(headAt - note.startedAt) : null,
      key_id: note.keyId ?? null,
      account_id: note.accountId ?? null,
      model: note.model ?? null,
      provider: note.provider ?? null,
      upstream_account: note.upstreamAccount ?? null,
      // On the wire, headers included (keep-alive: what the socket carried since its last response).
      bytes_in: read - (socket[READ] ?? 0),
      bytes_out: written - (socket[WRITTEN] ?? 0),
      error_code: note.errorCode ?? null,
    },
    'request',
  );
  socket[READ] = read;
  socket[WRITTEN] = written;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * Koa's part of the note: the route the router matched, who called (a key, or a console
 * session's user). The error boundary adds the error code (it runs inside this).
 */
export const noteKoaRequest: Middleware = async (ctx, next) => {
  try {
    await next();
  } finally {
    const note = noteOf(ctx.req);
    if (note) {
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      if (typeof route === 'string') note.route ??= route;
      const key = ctx.state.key as { id: string; userId: string } | undefined;
      const user = ctx.state.user as { id: string } | undefined;
      note.keyId ??= key?.id;
      note.accountId ??= key?.userId ?? user?.id;
    }
  }
};
