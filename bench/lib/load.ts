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
  /**
   * The same, of the requests sent once every connection was up (had its first answer): the ramp
   * left out. A server accepts one connection per event-loop turn, so the last of 200 starts late
   * and its first request counts that wait; so does every request queued behind it.
   */
  steadyP50: number;
  steadyP99: number;
  steadyN: number;
  /** Seconds from the start until every connection had its first answer (NaN: some never had one). */
  rampS: number;
  /** autocannon's own p99 (its histogram over every request, whole milliseconds). */
  autocannonP99: number;
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
  const steady: number[] = [];
  const answered = new Set<unknown>();
  let steadyFrom = Number.POSITIVE_INFINITY;
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
        const steadySorted = Float64Array.from(steady).sort();
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
          steadyP50: quantile(steadySorted, 0.5),
          steadyP99: quantile(steadySorted, 0.99),
          steadyN: steady.length,
          rampS: Number.isFinite(steadyFrom) ? (steadyFrom - started) / 1000 : Number.NaN,
          autocannonP99: result.latency.p99,
        });
      },
    );
    instance.on('response', (client, statusCode, _bytes, responseTime) => {
      const now = performance.now();
      if (statusCode >= 200 && statusCode < 300) {
        latencies.push(responseTime);
        if (now - responseTime >= steadyFrom) steady.push(responseTime);
      } else non2xx++;
      if (answered.size < options.connections) {
        answered.add(client);
        if (answered.size === options.connections) steadyFrom = now;
      }
    });
  });
}
