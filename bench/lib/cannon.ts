// autocannon with what the issue benchmarks need beyond lib/load.ts: a fixed number of requests
// (`amount`), a per-request hook (a unique Idempotency-Key each time), the raw latencies (to pool
// rounds) and the answers by status code.
import autocannon from 'autocannon';
import { quantile } from './load.js';

export interface CannonOptions {
  url: string;
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  durationS?: number;
  /** Exactly this many requests (autocannon waits for every answer). */
  amount?: number;
  body: string;
  headers: Record<string, string>;
  /** Called before every request; returns the headers to send with it (over `headers`). */
  perRequestHeaders?: () => Record<string, string>;
  /** Called before every request; returns its body (a unique id in it each time). */
  perRequestBody?: () => string;
}

export interface CannonResult {
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Answers by status code (non-2xx included), to say what went wrong. */
  statuses: Record<string, number>;
  elapsedS: number;
  rps: number;
  /** Latencies of 2xx answers, ms, in arrival order. */
  latencies: number[];
  p50: number;
  p99: number;
}

export function summarize(latencies: number[]): { p50: number; p90: number; p99: number; n: number } {
  const sorted = Float64Array.from(latencies).sort();
  return { p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), p99: quantile(sorted, 0.99), n: sorted.length };
}

export function cannon(options: CannonOptions): Promise<CannonResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let non2xx = 0;
  const started = performance.now();
  const target = new URL(options.url);
  const perRequest = options.perRequestHeaders;
  const perBody = options.perRequestBody;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.origin,
        connections: options.connections,
        ...(options.amount === undefined ? { duration: options.durationS ?? 8 } : { amount: options.amount }),
        pipelining: 1,
        timeout: 10,
        requests: [
          {
            method: 'POST',
            path: target.pathname,
            body: options.body,
            headers: options.headers,
            ...(perRequest || perBody
              ? {
                  setupRequest: (req: autocannon.Request) => ({
                    ...req,
                    headers: { ...options.headers, ...perRequest?.() },
                    ...(perBody && { body: perBody() }),
                  }),
                }
              : {}),
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err);
        const elapsedS = (performance.now() - started) / 1000;
        const s = summarize(latencies);
        resolve({
          ok: latencies.length,
          non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          statuses,
          elapsedS,
          rps: latencies.length / elapsedS,
          latencies,
          p50: s.p50,
          p99: s.p99,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      else non2xx++;
    });
  });
}
