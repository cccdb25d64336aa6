// Sequential time to first byte: one keep-alive connection per target, one request in flight in
// total, the targets interleaved request by request so that drift of the machine falls on all alike.
import { Client } from 'undici';
import { quantile } from './load.js';

export interface TtfbResult {
  n: number;
  failures: number;
  /** Milliseconds from sending the request to the first body byte. */
  p50: number;
  p90: number;
  p99: number;
}

export interface TtfbTarget {
  name: string;
  url: string;
  /** This target's own request, where targets speak different protocols (else the shared one). */
  body?: string;
  headers?: Record<string, string>;
}

export async function sequentialTtfb(
  targets: TtfbTarget[],
  body: string,
  headers: Record<string, string>,
  n: number,
  warmup = 30,
): Promise<Record<string, TtfbResult>> {
  const clients = targets.map((t) => new Client(new URL(t.url).origin, { pipelining: 1, keepAliveTimeout: 30_000 }));
  const samples = targets.map(() => [] as number[]);
  const failures = targets.map(() => 0);
  try {
    for (let i = 0; i < warmup + n; i++) {
      // Rotate which target goes first so none always follows the same one.
      for (let j = 0; j < targets.length; j++) {
        const k = (i + j) % targets.length;
        const target = targets[k]!;
        const url = new URL(target.url);
        const started = performance.now();
        const res = await clients[k]!.request({
          method: 'POST',
          path: url.pathname + url.search,
          headers: target.headers ?? headers,
          body: target.body ?? body,
        });
        let first: number | undefined;
        for await (const _chunk of res.body) first ??= performance.now();
        if (i < warmup) continue;
        if (res.statusCode !== 200 || first === undefined) failures[k]!++;
        else samples[k]!.push(first - started);
      }
    }
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
  return Object.fromEntries(
    targets.map((t, k) => {
      const sorted = Float64Array.from(samples[k]!).sort();
      return [
        t.name,
        {
          n: sorted.length,
          failures: failures[k]!,
          p50: quantile(sorted, 0.5),
          p90: quantile(sorted, 0.9),
          p99: quantile(sorted, 0.99),
        },
      ];
    }),
  );
}
