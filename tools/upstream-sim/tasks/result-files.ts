// Result downloads: GET/HEAD /_sim/files/{task}.mp4 and /_sim/files/{task}.{i}.png, served like a
// presigned object-storage URL (no auth, S3-style XML errors, 403 once expired), with Range support.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { SimContext } from '../sim-context.js';
import { RESULT_CONTENT_TYPES, resultStream } from './result-bytes.js';
import type { TaskRecord } from './task-record.js';

export const FILES_PREFIX = '/_sim/files/';
const FILE_NAME = /^([\w-]+)(?:\.(\d+))?\.(mp4|png)$/;

/** Where the task's results download from; `origin` is the simulator as the client reached it. */
export function resultUrls(origin: string, task: TaskRecord): string[] {
  if (task.kind === 'video') return [`${origin}${FILES_PREFIX}${task.id}.mp4`];
  return Array.from({ length: task.count }, (_, i) => `${origin}${FILES_PREFIX}${task.id}.${i}.png`);
}

export function originOf(req: IncomingMessage): string {
  return `http://${req.headers.host ?? '127.0.0.1'}`;
}

/** The origin result URLs are given on: the simulator's `resultOrigin` (a CDN), else the simulator as reached. */
export function resultOrigin(req: IncomingMessage, sim: SimContext): string {
  return sim.resultOrigin ?? originOf(req);
}

function s3Error(res: ServerResponse, status: number, code: string, message: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

type ByteRange = { start: number; end: number } | 'unsatisfiable' | undefined;

/** One `bytes=` range (inclusive end); undefined means "send it all", as RFC 9110 says for what it cannot use. */
export function parseRange(header: string | undefined, size: number): ByteRange {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    return suffix === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const last = match[2] === '' ? Infinity : Number(match[2]);
  if (last < start) return undefined;
  return start >= size ? 'unsatisfiable' : { start, end: Math.min(last, size - 1) };
}

/** Writes the file (or the asked range) of `name`; used for result URLs and OpenAI's /content. */
export async function sendResult(
  req: IncomingMessage,
  res: ServerResponse,
  task: TaskRecord,
  name: string,
  sim: SimContext,
): Promise<void> {
  const size = task.plan.resultBytes;
  const range = parseRange(req.headers.range, size);
  const headers = {
    'content-type': RESULT_CONTENT_TYPES[task.kind],
    'accept-ranges': 'bytes',
    etag: `"${name}-${size}"`,
    'last-modified': new Date(task.createdAt).toUTCString(),
  };
  if (range === 'unsatisfiable') {
    res.writeHead(416, { ...headers, 'content-range': `bytes */${size}`, 'content-length': 0 });
    return void res.end();
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  res.writeHead(range ? 206 : 200, {
    ...headers,
    'content-length': end + 1 - start,
    ...(range ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}),
  });
  if (req.method === 'HEAD') return void res.end();
  sim.stats.countTask(task.protocol, 'resultDownloads');
  // A client that stops reading half-way is normal for a download; nothing to report.
  await pipeline(resultStream(name, task.kind, start, end), res).catch(() => undefined);
}

export async function handleFile(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  sim: SimContext,
): Promise<void> {
  req.resume();
  if (req.method !== 'GET' && req.method !== 'HEAD') return s3Error(res, 405, 'MethodNotAllowed', 'Use GET or HEAD.');
  const match = FILE_NAME.exec(path.slice(FILES_PREFIX.length));
  const task = match?.[1] === undefined ? undefined : sim.tasks.get(match[1]);
  const index = match?.[2] === undefined ? undefined : Number(match[2]);
  const wanted =
    task?.kind === 'video'
      ? index === undefined && match?.[3] === 'mp4'
      : index !== undefined && index < (task?.count ?? 0) && match?.[3] === 'png';
  if (task === undefined || !wanted) return s3Error(res, 404, 'NoSuchKey', 'The specified key does not exist.');
  const state = sim.tasks.state(task);
  if (state.status !== 'succeeded') return s3Error(res, 404, 'NoSuchKey', 'The specified key does not exist.');
  if (sim.tasks.now() >= (state.expiresAt ?? 0)) return s3Error(res, 403, 'AccessDenied', 'Request has expired');
  await sendResult(req, res, task, index === undefined ? task.id : `${task.id}.${index}`, sim);
}
