// `npm run bench:surfaces` (also the second half of `npm run bench`): the Messages and
// generateContent surfaces beside chat completions, same-protocol and translated, in one run
// against one gateway and one simulator. See bench/README.md, "Surfaces".
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchRun } from './lib/bench-run.js';
import { publishResult } from './lib/results.js';
import { startGateway } from './lib/gateway.js';
import { runLoad, type LoadResult } from './lib/load.js';
import { cpuMicros, readUrl, snapshot } from './lib/processes.js';
import { newestProfile, summarizeProfile } from './lib/profile.js';
import { QuietGuard } from './lib/quiet.js';
import { sequentialTtfb } from './lib/ttfb.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const num = (name: string, def: number) => (process.env[name] ? Number(process.env[name]) : def);
const DURATION_S = num('BENCH_DURATION_S', 4);
/** Every scenario is measured this many times, the rounds interleaved, and its median kept: drift of the machine falls on all alike. */
const ROUNDS = num('BENCH_ROUNDS', 3);
const WARMUP_S = num('BENCH_WARMUP_S', 2);
const TTFB_N = num('BENCH_TTFB_N', 300);
const CONNECTIONS = num('BENCH_SURFACE_CONNECTIONS', 50);
const log = (message: string) => process.stderr.write(`[bench:surfaces] ${message}\n`);

type Surface = 'chat' | 'responses' | 'embeddings' | 'messages' | 'content';
type Upstream = 'openai' | 'anthropic' | 'gemini';
const MODEL: Record<Upstream, string> = {
  openai: 'bench-openai',
  anthropic: 'bench-anthropic',
  gemini: 'bench-gemini',
};

interface Scenario {
  name: string;
  surface: Surface;
  upstream: Upstream;
  stream: boolean;
}

function request(s: Scenario, key: string): { path: string; headers: Record<string, string>; body: string } {
  const model = MODEL[s.upstream];
  if (s.surface === 'chat') {
    return {
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        model,
        messages: [{ role: 'user', content: 'hello' }],
        max_tokens: 16,
        ...(s.stream && { stream: true, stream_options: { include_usage: true } }),
      }),
    };
  }
  if (s.surface === 'responses') {
    return {
      path: '/v1/responses',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model, input: 'hello', max_output_tokens: 16, ...(s.stream && { stream: true }) }),
    };
  }
  if (s.surface === 'embeddings') {
    return {
      path: '/v1/embeddings',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'bench-embed', input: 'hello', encoding_format: 'float' }),
    };
  }
  if (s.surface === 'messages') {
    return {
      path: '/native-messages/v1/messages',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model,
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hello' }],
        ...(s.stream && { stream: true }),
      }),
    };
  }
  return {
    path: `/native-content/v1beta/models/${model}:${s.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
    body: JSON.stringify({
      contents: [{ role: 'user', parts: [{ text: 'hello' }] }],
      generationConfig: { maxOutputTokens: 16 },
    }),
  };
}

const scenario = (surface: Surface, upstream: Upstream, stream: boolean): Scenario => ({
  name: `${surface}←${upstream}${stream ? ' stream' : ''}`,
  surface,
  upstream,
  stream,
});
const ALL_SCENARIOS: Scenario[] = [
  scenario('chat', 'openai', false),
  scenario('messages', 'anthropic', false),
  scenario('content', 'gemini', false),
  scenario('chat', 'openai', true),
  scenario('messages', 'anthropic', true),
  scenario('content', 'gemini', true),
  scenario('messages', 'openai', true),
  scenario('content', 'openai', true),
  scenario('chat', 'anthropic', true),
  scenario('chat', 'gemini', true),
  scenario('responses', 'openai', true),
  scenario('embeddings', 'openai', false),
];
/** `BENCH_ONLY='chat←openai stream,content←openai stream'`: only these (a look while working; not a full run). */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : undefined;
const SCENARIOS = ALL_SCENARIOS.filter((s) => !ONLY || ONLY.has(s.name));
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR ? path.resolve(process.env.BENCH_PROFILE_DIR) : undefined;

interface Measured {
  scenario: Scenario;
  load: LoadResult;
  /** API + worker + Redis CPU per request, µs. */
  cpuPerReq: number;
}

async function main(): Promise<void> {
  const run = await BenchRun.start('gw-bench-surfaces', log);
  let ok = false;
  try {
    const sim = run.spawn('sim', path.join(root, 'dist-bench/tools/upstream-sim/main.js'), ['--port', '0']);
    const simUrl = await readUrl(sim);
    const gw = await startGateway({
      root,
      tmpDir: run.tmpDir,
      logDir: run.logDir,
      upstreams: { 'sim-openai': simUrl },
      models: { 'bench-openai': 'sim-openai' },
      catalogExtra: {
        providers: [
          { id: 'sim-anthropic', protocol: 'anthropic', base_url: simUrl, api_key: 'bench-upstream-secret' },
          { id: 'sim-gemini', protocol: 'gemini', base_url: simUrl, api_key: 'bench-upstream-secret' },
        ],
        models: [
          ...(['anthropic', 'gemini'] as const).map((p) => ({
            id: MODEL[p],
            endpoints: ['chat/completions'],
            routes: [{ provider: `sim-${p}` }],
            pricing: { input_per_mtok: 2_000_000, output_per_mtok: 8_000_000 },
            max_output_tokens: 1000,
          })),
          {
            id: 'bench-embed',
            endpoints: ['embeddings'],
            routes: [{ provider: 'sim-openai' }],
            pricing: { input_per_mtok: 100_000 },
          },
        ],
      },
      // BENCH_PROFILE_DIR=/dir: a V8 CPU profile of the API, written when it stops (then read below).
      apiNodeArgs: PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] : undefined,
      postgresAdminUrl: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    });
    run.onEnd(() => gw.close());
    const key = gw.authorization.slice('Bearer '.length);
    const info = await gw.redis.info('server');
    const redisPid = Number(/process_id:(\d+)/.exec(info)?.[1]);
    const pids = [gw.api.pid, gw.worker.pid, redisPid];
    const quiet = new QuietGuard({
      busy: 0.15,
      waitS: num('BENCH_QUIET_WAIT_S', 20),
      budgetS: num('BENCH_QUIET_BUDGET_S', 60),
      log,
    });

    for (const s of SCENARIOS) {
      const r = request(s, key);
      await runLoad({
        url: `${gw.url}${r.path}`,
        connections: CONNECTIONS,
        durationS: 1,
        body: r.body,
        headers: r.headers,
      });
    }
    await gw.usageDrained();

    const rounds: Measured[][] = SCENARIOS.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, s] of SCENARIOS.entries()) rounds[i]!.push(await measureOne(s));
    }
    // The median round of each scenario, by CPU per request.
    const measured = rounds.map((all) => all.sort((a, b) => a.cpuPerReq - b.cpuPerReq)[Math.floor(all.length / 2)]!);
    log(
      `medians of ${ROUNDS} rounds: ${measured.map((m) => `${m.scenario.name} ${Math.round(m.cpuPerReq)}`).join(', ')}`,
    );

    async function measureOne(s: Scenario): Promise<Measured> {
      const r = request(s, key);
      const url = `${gw.url}${r.path}`;
      await runLoad({ url, connections: CONNECTIONS, durationS: WARMUP_S, body: r.body, headers: r.headers });
      await gw.usageDrained();
      await quiet.wait();
      const before = snapshot(pids);
      const load = await runLoad({
        url,
        connections: CONNECTIONS,
        durationS: DURATION_S,
        body: r.body,
        headers: r.headers,
      });
      await gw.usageDrained();
      const after = snapshot(pids);
      const cpuPerReq = cpuMicros(before, after, pids) / Math.max(1, load.ok);
      if (load.non2xx > 0 || load.errors > 0) log(`${s.name}: ${load.non2xx} non-2xx, ${load.errors} errors`);
      log(
        `${s.name}: ${Math.round(load.rps)} req/s p50 ${load.p50.toFixed(2)} ms, ${Math.round(cpuPerReq)} µs CPU/req`,
      );
      return { scenario: s, load, cpuPerReq };
    }

    // Time to first byte of streams, one request at a time, the scenarios interleaved request by request.
    await quiet.wait();
    const ttfbTargets = SCENARIOS.filter((s) => s.stream).map((s) => {
      const r = request(s, key);
      return { name: s.name, url: `${gw.url}${r.path}`, body: r.body, headers: r.headers };
    });
    const ttfbResults = await sequentialTtfb(ttfbTargets, '', {}, TTFB_N);
    const ttfb: Record<string, number> = Object.fromEntries(
      Object.entries(ttfbResults).map(([name, r]) => [name, r.p50]),
    );

    if (ONLY) {
      if (PROFILE_DIR) {
        await gw.close();
        const file = await newestProfile(PROFILE_DIR);
        const summary = file && (await summarizeProfile(file, root));
        if (summary)
          for (const [fn, us] of summary.self.slice(0, 40)) log(`${((100 * us) / summary.busyUs).toFixed(1)}% ${fn}`);
      }
      ok = true;
      return;
    }
    const cpu = (name: string) => measured.find((m) => m.scenario.name === name)!.cpuPerReq;
    const checks = [
      {
        target: 'same-protocol Messages JSON ≤ 1.1× chat CPU',
        ratio: cpu('messages←anthropic') / cpu('chat←openai'),
        limit: 1.1,
      },
      {
        target: 'same-protocol generateContent JSON ≤ 1.1× chat CPU',
        ratio: cpu('content←gemini') / cpu('chat←openai'),
        limit: 1.1,
      },
      {
        target: 'same-protocol Messages stream ≤ 1.1× chat stream CPU',
        ratio: cpu('messages←anthropic stream') / cpu('chat←openai stream'),
        limit: 1.1,
      },
      {
        target: 'same-protocol generateContent stream ≤ 1.1× chat stream CPU',
        ratio: cpu('content←gemini stream') / cpu('chat←openai stream'),
        limit: 1.1,
      },
      {
        target: 'Messages ← chat-completions stream (translated) ≤ 1.5× the same stream passed through',
        ratio: cpu('messages←openai stream') / cpu('chat←openai stream'),
        limit: 1.5,
      },
      {
        target: 'generateContent ← chat-completions stream (translated) ≤ 1.5× passed through',
        ratio: cpu('content←openai stream') / cpu('chat←openai stream'),
        limit: 1.5,
      },
      {
        target: 'chat ← Messages stream (translated) ≤ 1.5× the same stream passed through',
        ratio: cpu('chat←anthropic stream') / cpu('messages←anthropic stream'),
        limit: 1.5,
      },
      {
        target: 'chat ← generateContent stream (translated) ≤ 1.5× passed through',
        ratio: cpu('chat←gemini stream') / cpu('content←gemini stream'),
        limit: 1.5,
      },
      {
        target: 'an embeddings call ≤ 1× the CPU of a chat call',
        ratio: cpu('embeddings←openai') / cpu('chat←openai'),
        limit: 1,
      },
    ];
    const ttftChecks = [
      {
        target: 'Messages client: translated (← chat completions) TTFB − same-protocol',
        added: ttfb['messages←openai stream']! - ttfb['messages←anthropic stream']!,
      },
      {
        target: 'generateContent client: translated (← chat completions) TTFB − same-protocol',
        added: ttfb['content←openai stream']! - ttfb['content←gemini stream']!,
      },
      {
        target: 'chat client: translated (← Messages) TTFB − same-protocol',
        added: ttfb['chat←anthropic stream']! - ttfb['chat←openai stream']!,
      },
      {
        target: 'chat client: translated (← generateContent) TTFB − same-protocol',
        added: ttfb['chat←gemini stream']! - ttfb['chat←openai stream']!,
      },
      {
        target: 'Responses stream TTFB − the same model through chat completions',
        added: ttfb['responses←openai stream']! - ttfb['chat←openai stream']!,
      },
    ];

    const lines = [
      `# Surfaces benchmark (${new Date().toISOString()})`,
      '',
      `Command: \`npm run bench:surfaces\`. ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; ${CONNECTIONS} connections, ${DURATION_S} s per scenario, ${ROUNDS} interleaved rounds (the median round shown); CPU = API + worker + Redis per request; TTFB p50 over ${TTFB_N} sequential streams, the scenarios interleaved.`,
      '',
      '| scenario (client ← upstream) | req/s | p50 ms | p99 ms | CPU µs/req | TTFB p50 ms |',
      '|---|---|---|---|---|---|',
      ...measured.map(
        (m) =>
          `| ${m.scenario.name} | ${Math.round(m.load.rps)} | ${m.load.p50.toFixed(2)} | ${m.load.p99.toFixed(2)} | ${Math.round(m.cpuPerReq)} | ${ttfb[m.scenario.name]?.toFixed(3) ?? '–'} |`,
      ),
      '',
      '| target | measured | met |',
      '|---|---|---|',
      ...checks.map((c) => `| ${c.target} | ${c.ratio.toFixed(2)}× | ${c.ratio <= c.limit ? 'yes' : '**MISSED**'} |`),
      ...ttftChecks.map(
        (c) =>
          `| ${c.target} ≤ 1 ms | ${c.added >= 0 ? '+' : ''}${c.added.toFixed(3)} ms | ${c.added <= 1 ? 'yes' : '**MISSED**'} |`,
      ),
      '',
    ];
    await publishResult(root, 'surfaces-latest.md', lines.join('\n'));
    ok = true;
  } finally {
    await run.end(ok);
  }
}

await main();
