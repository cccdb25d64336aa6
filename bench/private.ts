// `npm run bench:private`: the private protocol beside the standard routes, in one run against one
// gateway (API and worker processes): a non-stream chat call through the job path against the same
// call on /v1/chat/completions; getResult against GET /v1/videos/{id}; video creations with unique
// clientRequestIds against POST /v1/videos. See bench/README.md, "Private protocol".
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchRun } from './lib/bench-run.js';
import { publishResult } from './lib/results.js';
import { cannon, summarize } from './lib/cannon.js';
import { startGateway } from './lib/gateway.js';
import { readUrl } from './lib/processes.js';
import { sequentialInterleaved } from './lib/sequential.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const num = (name: string, def: number) => (process.env[name] ? Number(process.env[name]) : def);
const N = num('BENCH_PRIVATE_N', 300);
const DURATION_S = num('BENCH_DURATION_S', 6);
const CONNECTIONS = num('BENCH_CONNECTIONS', 20);
const log = (message: string) => process.stderr.write(`[bench:private] ${message}\n`);
let seq = 0;
const unique = () => `bench-${process.pid}-${++seq}-${Math.random().toString(36).slice(2)}`;

async function main(): Promise<void> {
  const run = await BenchRun.start('gw-bench-private', log);
  let ok = false;
  try {
    const sim = run.spawn('sim', path.join(root, 'dist-bench/tools/upstream-sim/main.js'), ['--port', '0']);
    const simUrl = await readUrl(sim);
    const gw = await startGateway({
      root,
      tmpDir: run.tmpDir,
      logDir: run.logDir,
      upstreams: { 'sim-openai': simUrl },
      models: { 'bench-chat': 'sim-openai' },
      catalogExtra: {
        providers: [
          {
            id: 'sim-tasks',
            protocol: 'content-tasks',
            base_url: `${simUrl}/api/v3`,
            api_key: 'bench-upstream-secret',
          },
        ],
        models: [
          {
            id: 'bench-video',
            endpoints: ['videos'],
            routes: [{ provider: 'sim-tasks', upstream_model: 'bench-video-up' }],
            durations: [5],
            resolutions: ['720p'],
            pricing: { per_second: { '720p': 10 } },
          },
        ],
      },
      env: { STORAGE_DRIVER: 'local' },
      // The worker runs the private chat jobs and drains usage; video submissions stay queued, so
      // creation is measured alone on both sides.
      workerEnv: { WORKER_QUEUES: 'usage,private-chat' },
      postgresAdminUrl: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    });
    run.onEnd(() => gw.close());
    const created = await gw.cli(['key:create', '--email', gw.email, '--kind', 'private', '--name', 'bench-private']);
    const privateKey = String(created.key);
    const json = { 'content-type': 'application/json' };
    const standard = { ...json, authorization: gw.authorization };
    const chatInput = { messages: [{ role: 'user', content: 'hello' }], max_tokens: 16 };

    // (a) one call at a time, interleaved: the job path's added latency.
    const chat = await sequentialInterleaved(
      [
        {
          name: 'chat',
          url: `${gw.url}/v1/chat/completions`,
          headers: standard,
          body: JSON.stringify({ model: 'bench-chat', ...chatInput }),
        },
        {
          name: 'private',
          url: `${gw.url}/server/v1/call`,
          headers: json,
          body: () =>
            JSON.stringify({ apiKey: privateKey, clientRequestId: unique(), model: 'bench-chat', input: chatInput }),
        },
      ],
      N,
    );

    // (b) reading a result: a video task by id, and a private call's state by task id.
    const video = await fetch(`${gw.url}/v1/videos`, {
      method: 'POST',
      headers: standard,
      body: JSON.stringify({ model: 'bench-video', content: [{ type: 'text', text: 'x' }] }),
    });
    const videoId = ((await video.json()) as { id: string }).id;
    const call = await fetch(`${gw.url}/server/v1/call`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ apiKey: privateKey, clientRequestId: unique(), model: 'bench-chat', input: chatInput }),
    });
    const taskId = ((await call.json()) as { data: { task_id: string } }).data.task_id;
    const reads = await sequentialInterleaved(
      [
        {
          name: 'video',
          url: `${gw.url}/v1/videos/${videoId}`,
          headers: { authorization: gw.authorization },
          method: 'GET',
        },
        {
          name: 'getResult',
          url: `${gw.url}/server/v1/getResult`,
          headers: json,
          body: JSON.stringify({ apiKey: privateKey, taskId }),
        },
      ],
      N,
    );

    // (c) creations at load: unique ids on both sides.
    await gw.usageDrained();
    const standardRate = await cannon({
      url: `${gw.url}/v1/videos`,
      connections: CONNECTIONS,
      durationS: DURATION_S,
      headers: standard,
      body: JSON.stringify({ model: 'bench-video', content: [{ type: 'text', text: 'x' }] }),
      perRequestHeaders: () => ({ 'idempotency-key': unique() }),
    });
    await gw.usageDrained();
    const privateRate = await cannon({
      url: `${gw.url}/server/v1/call`,
      connections: CONNECTIONS,
      durationS: DURATION_S,
      headers: json,
      body: '{}',
      perRequestBody: () =>
        JSON.stringify({
          apiKey: privateKey,
          clientRequestId: unique(),
          model: 'bench-video',
          input: { content: [{ type: 'text', text: 'x' }] },
        }),
    });

    const p50 = (r: { latencies: number[] }) => summarize(r.latencies).p50;
    const added = p50(chat.private!) - p50(chat.chat!);
    const readRatio = p50(reads.getResult!) / p50(reads.video!);
    const rateRatio = privateRate.rps / standardRate.rps;
    const failures = [
      chat.chat!.failures,
      chat.private!.failures,
      reads.video!.failures,
      reads.getResult!.failures,
      standardRate.non2xx + standardRate.errors,
      privateRate.non2xx + privateRate.errors,
    ];
    const lines = [
      `# Private protocol benchmark (${new Date().toISOString()})`,
      '',
      `Command: \`npm run bench:private\`. ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; ${N} sequential calls per target (interleaved); creations: ${CONNECTIONS} connections, ${DURATION_S} s each. Failures: ${failures.join(', ')}.`,
      '',
      '| measure | standard | private | target | met |',
      '|---|---|---|---|---|',
      `| non-stream chat call, p50 ms (private: through the job path) | ${p50(chat.chat!).toFixed(2)} | ${p50(chat.private!).toFixed(2)} | adds ≤ 3 ms (+${added.toFixed(2)} ms) | ${added <= 3 ? 'yes' : '**MISSED**'} |`,
      `| reading a result, p50 ms (GET /v1/videos/{id} vs getResult) | ${p50(reads.video!).toFixed(3)} | ${p50(reads.getResult!).toFixed(3)} | ≤ 1× (${readRatio.toFixed(2)}×) | ${readRatio <= 1 ? 'yes' : '**MISSED**'} |`,
      `| video creations per second (unique ids) | ${Math.round(standardRate.rps)} | ${Math.round(privateRate.rps)} | ≥ 0.9× (${rateRatio.toFixed(2)}×) | ${rateRatio >= 0.9 ? 'yes' : '**MISSED**'} |`,
      '',
    ];
    await publishResult(root, 'private-latest.md', lines.join('\n'));
    ok = true;
  } finally {
    await run.end(ok);
  }
}

await main();
