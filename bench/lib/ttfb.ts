// Sequential time to first byte: one keep-alive connection, one request at a time, no queueing.
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

export async function sequentialTtfb(
  url: string,
  body: string,
  headers: Record<string, string>,
  n: number,
  warmup = 30,
): Promise<TtfbResult> {
  const target = new URL(url);
  const client = new Client(target.origin, { pipelining: 1, keepAliveTimeout: 30_000 });
  const samples: number[] = [];
  let failures = 0;
  try {
    for (let i = 0; i < warmup + n; i++) {
      const started = performance.now();
      const res = await client.request({ method: 'POST', path: target.pathname, headers, body });
      let first: number | undefined;
      for await (const _chunk of res.body) first ??= performance.now();
      if (i < warmup) continue;
      if (res.statusCode !== 200 || first === undefined) failures++;
      else samples.push(first - started);
    }
  } finally {
    await client.close();
  }
  const sorted = Float64Array.from(samples).sort();
  return { n: samples.length, failures, p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), p99: quantile(sorted, 0.99) };
}
