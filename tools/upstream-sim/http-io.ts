import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Large enough for any prompt a test or benchmark sends; guards against runaway uploads. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export type JsonBody = { ok: true; value: unknown; text: string } | { ok: false; reason: 'invalid-json' | 'too-large' };

/** The whole request body, or undefined past the size limit; rejects only when the client goes away mid-upload. */
export async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** Reads and parses the request body; rejects only when the client goes away mid-upload. */
export async function readJsonBody(req: IncomingMessage): Promise<JsonBody> {
  const body = await readBody(req);
  if (body === undefined) return { ok: false, reason: 'too-large' };
  const text = body.toString('utf8');
  try {
    return { ok: true, value: JSON.parse(text), text };
  } catch {
    return { ok: false, reason: 'invalid-json' };
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** The path without its query string. */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/**
 * Runs one response's delays as a single timer chain and drops pending work once the client
 * has gone, so abandoned streams and slow responses leave nothing behind.
 */
export class ResponseClock {
  private timer: NodeJS.Timeout | undefined;
  private watching = false;

  constructor(private readonly res: ServerResponse) {}

  after(ms: number, run: () => void): void {
    if (this.res.destroyed) return;
    // Zero delay runs inline: the benchmark path then costs no timer and no listener.
    if (ms <= 0) return run();
    if (!this.watching) {
      this.watching = true;
      this.res.once('close', () => clearTimeout(this.timer));
    }
    this.timer = setTimeout(run, ms);
  }
}
