// Mirroring a large result must stream: a 200 MiB body through the S3 driver may not grow the
// process by more than 150 MiB RSS (s3rver runs in its own process, so only our side is measured).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createObjectStore, type ObjectStore } from '../../shared/storage/index.js';
import { startS3, type TestS3 } from '../support/s3.js';

const MiB = 1024 * 1024;
const TOTAL = 200 * MiB;
const CHUNK = 256 * 1024;

let s3: TestS3;
let store: ObjectStore;

beforeAll(async () => {
  s3 = await startS3();
  store = createObjectStore({
    driver: 's3',
    endpoint: s3.endpoint,
    region: 'us-east-1',
    bucket: s3.bucket,
    forcePathStyle: true,
    ...credentials(),
  });
  await store.ensureReady();
});
afterAll(async () => {
  store.close();
  await s3.close();
});

function credentials() {
  return { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey };
}

/** Deterministic pseudo-random bytes (xorshift32), made chunk by chunk as they are read; hashes what it emits. */
function generated(total: number): { stream: Readable; digest(): string } {
  const hash = createHash('sha256');
  let state = 0x9e3779b9;
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      const n = Math.min(CHUNK, total - sent);
      const words = new Uint32Array(n / 4);
      for (let i = 0; i < words.length; i++) {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        words[i] = state >>> 0;
      }
      const chunk = Buffer.from(words.buffer);
      hash.update(chunk);
      sent += n;
      this.push(chunk);
    },
  });
  return { stream, digest: () => hash.digest('hex') };
}

function sampleRss(): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

it('streams 200 MiB into S3 with bounded memory, byte for byte', { timeout: 180_000 }, async () => {
  const source = generated(TOTAL);
  const baseline = process.memoryUsage().rss;
  const sampler = sampleRss();
  const { size } = await store.put('mirror/big.bin', source.stream, { contentType: 'video/mp4', contentLength: TOTAL });
  const uploadPeak = sampler.stop();
  expect(size).toBe(TOTAL);

  const readSampler = sampleRss();
  const got = await store.get('mirror/big.bin');
  expect(got).toMatchObject({ size: TOTAL, length: TOTAL, contentType: 'video/mp4' });
  const readBack = createHash('sha256');
  let read = 0;
  for await (const chunk of got!.body) {
    readBack.update(chunk as Buffer);
    read += (chunk as Buffer).length;
  }
  const readPeak = readSampler.stop();

  expect(read).toBe(TOTAL);
  expect(readBack.digest('hex')).toBe(source.digest());
  const growth = (uploadPeak - baseline) / MiB;
  console.info(`rss growth: upload ${growth.toFixed(1)} MiB, read ${((readPeak - baseline) / MiB).toFixed(1)} MiB`);
  expect(growth).toBeLessThan(150);
  expect((readPeak - baseline) / MiB).toBeLessThan(150);
});
