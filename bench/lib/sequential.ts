// Sequential whole-response latency of several targets, interleaved request by request (one
// keep-alive connection per target, one request in flight in total), so drift of the machine or
// of the upstream's timers falls on every target alike.
import { Client } from 'undici';

export interface SequentialTarget {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** A body, or one made per request (a unique id each time); none for a GET. */
  body?: string | (() => string);
  method?: 'GET' | 'POST';
}

export interface SequentialResult {
  /** Whole-response times of 2xx answers, ms. */
  latencies: number[];
  failures: number;
}

export async function sequentialInterleaved(
  targets: SequentialTarget[],
  n: number,
  warmup = 30,
): Promise<Record<string, SequentialResult>> {
  const clients = targets.map((t) => new Client(new URL(t.url).origin, { pipelining: 1, keepAliveTimeout: 60_000 }));
  const out: Record<string, SequentialResult> = Object.fromEntries(
    targets.map((t) => [t.name, { latencies: [], failures: 0 }]),
  );
  try {
    for (let i = 0; i < warmup + n; i++) {
      // Rotate which target goes first so none always follows the same one.
      for (let j = 0; j < targets.length; j++) {
        const k = (i + j) % targets.length;
        const t = targets[k]!;
        const started = performance.now();
        const body = typeof t.body === 'function' ? t.body() : t.body;
        const res = await clients[k]!.request({
          method: t.method ?? 'POST',
          path: new URL(t.url).pathname,
          headers: t.headers,
          ...(body !== undefined && { body }),
        });
        await res.body.arrayBuffer();
        const ms = performance.now() - started;
        if (i < warmup) continue;
        if (res.statusCode >= 200 && res.statusCode < 300) out[t.name]!.latencies.push(ms);
        else out[t.name]!.failures++;
      }
    }
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
  return out;
}
