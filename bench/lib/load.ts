// Closed-loop load with autocannon: N connections, each sends its next request when the last ends.
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  connections: number;
  durationS: number;
  body: string;
  headers: Record<string, string>;
}

export interface LoadResult {
  /** 2xx responses completed within the run. */
  ok: number;
  non2xx: number;
  /** Connection errors, resets and timeouts as autocannon counts them. */
  errors: number;
  timeouts: number;
  elapsedS: number;
  rps: number;
  /** Whole-response latency of 2xx responses, milliseconds (sub-millisecond precision). */
  p50: number;
  p99: number;
  mean: number;
}

/** The q-quantile (0..1) of sorted values, nearest rank. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/**
 * autocannon's own histogram keeps whole milliseconds; the latency of every response is taken
 * from its `response` event instead (float milliseconds from process.hrtime), so that sub-millisecond
 * differences between targets stay visible.
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  let non2xx = 0;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: 'POST',
        connections: options.connections,
        duration: options.durationS,
        pipelining: 1,
        timeout: 10,
        body: options.body,
        headers: options.headers,
      },
      (err, result) => {
        if (err) return reject(err);
        const elapsedS = (performance.now() - started) / 1000;
        const sorted = Float64Array.from(latencies).sort();
        let sum = 0;
        for (const v of latencies) sum += v;
        resolve({
          ok: latencies.length,
          non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          elapsedS,
          rps: latencies.length / elapsedS,
          p50: quantile(sorted, 0.5),
          p99: quantile(sorted, 0.99),
          mean: latencies.length ? sum / latencies.length : Number.NaN,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      else non2xx++;
    });
  });
}
