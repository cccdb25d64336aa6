// What the client adds per call over a raw fetch of the same endpoint:
// GATEWAY_BASE_URL=… GATEWAY_API_KEY=… node clients/typescript/bench.mjs [calls]  (after build.mjs)
import { Gateway } from './dist/esm/index.js';

const base = process.env.GATEWAY_BASE_URL;
const key = process.env.GATEWAY_API_KEY;
const n = Number(process.argv[2] ?? 500);
const gw = new Gateway({ apiKey: key, baseURL: base });
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];

async function raw() {
  const start = performance.now();
  for (let i = 0; i < n; i++)
    await (
      await fetch(`${base}/v1/videos?limit=1`, {
        headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
        redirect: 'manual',
      })
    ).json();
  return (performance.now() - start) / n;
}
async function client() {
  const start = performance.now();
  for (let i = 0; i < n; i++) await gw.videos.list({ limit: 1 });
  return (performance.now() - start) / n;
}

await raw();
await client();
const raws = [];
const libs = [];
for (let round = 0; round < 7; round++) {
  raws.push(await raw());
  libs.push(await client());
}
const r = median(raws);
const c = median(libs);
console.log(
  `raw fetch ${r.toFixed(3)} ms/call, gateway-client ${c.toFixed(3)} ms/call, added ${(c - r).toFixed(3)} ms/call (${n} calls x 7 paired rounds)`,
);
