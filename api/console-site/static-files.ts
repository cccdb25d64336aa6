import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Serves the built site from `root`: hashed files under /assets/ cached for a year, everything
 * else revalidated; a path without a file extension (a page of the single-page app) and
 * /index.html get `page()`, the app's document. Nothing outside `root` is reachable, nor a
 * dot-file or dot-folder in it (the build's `.vite/` manifest).
 */
export async function serveStatic(
  root: string,
  req: IncomingMessage,
  res: ServerResponse,
  headers: Record<string, string>,
  page: (req: IncomingMessage) => string,
): Promise<void> {
  const pathname = decodePath(req.url ?? '/');
  if (pathname === undefined) return send(res, 400, 'bad path', headers);
  if (path.extname(pathname) === '' || pathname === '/index.html') {
    const html = page(req);
    res.writeHead(200, {
      ...headers,
      'content-type': TYPES['.html']!,
      'content-length': String(Buffer.byteLength(html)),
      'cache-control': 'no-cache',
    });
    return void res.end(req.method === 'HEAD' ? undefined : html);
  }
  if (pathname.split('/').some((segment) => segment.startsWith('.'))) return send(res, 404, 'not found', headers);
  const file = path.join(root, pathname);
  if (!file.startsWith(root + path.sep)) return send(res, 404, 'not found', headers);
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) return send(res, 404, 'not found', headers);
  res.writeHead(200, {
    ...headers,
    'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'content-length': String(info.size),
    'cache-control': pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}

function decodePath(url: string): string | undefined {
  try {
    const pathname = decodeURIComponent(new URL(url, 'http://site').pathname);
    return pathname.includes('\0') || pathname.split('/').includes('..') ? undefined : pathname;
  } catch {
    return undefined;
  }
}

export function send(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string>,
  type = 'text/plain; charset=utf-8',
): void {
  res.writeHead(status, {
    ...headers,
    'content-type': type,
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-cache',
  });
  res.end(text);
}
