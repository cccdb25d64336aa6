// Turns the measured phases into the markdown report (tables and target checks).
import type { LoadResult } from './load.js';
import type { LoopStats } from './loop-stats.js';
import { pairedFigures, renderPaired, type PairedRound } from './paired.js';
import type { TtfbResult } from './ttfb.js';

export type TargetName = 'sim' | 'bare' | 'gateway';
export type Mode = 'json' | 'stream';
export type Upstream = 'instant' | 'paced';

export interface CpuBreakdown {
  /** Microseconds of CPU per completed request, by process role. */
  [role: string]: number;
}

export interface Phase {
  upstream: Upstream;
  mode: Mode;
  connections: number;
  target: TargetName;
  load: LoadResult;
  /** The target's CPU µs per request: its own processes (gateway: API + worker + Redis). */
  cpuPerReq: number;
  cpuDetail: CpuBreakdown;
  /** Share of both cores that was busy during the phase (all processes on the machine), 0..1. */
  hostBusy: number;
  /** Share of both cores used by processes outside the benchmark during the phase, 0..1. */
  foreignLoad: number;
  /** Busy share of the machine just before the phase started (after waiting for it to be quiet). */
  foreignBefore: number;
  /** How many times the phase was measured (a disturbed one is measured again; the least disturbed is kept). */
  attempts: number;
  /** The event loop of the target's front process (the API, the bare proxy) during the phase. */
  loop?: LoopStats;
}

export interface Report {
  command: string;
  date: string;
  machine: string;
  settings: { durationS: number; warmupS: number; ttfbN: number; connections: number[] };
  phases: Phase[];
  ttfb: Record<TargetName, TtfbResult>;
  usage: { status_code: number; error_code: string | null; stream: boolean; n: number }[];
  /** The instant scenarios measured again in pairs (lib/paired.ts); a saved run from before has none. */
  paired?: PairedRound[];
}

/** Foreign load above this share of both cores marks a phase as disturbed. */
export const NOISY = 0.1;

const TARGET_LABEL: Record<TargetName, string> = { sim: 'simulator (direct)', bare: 'bare proxy', gateway: 'gateway' };

const f0 = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : 'n/a');
const f2 = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');
const signed = (v: number) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(2)}` : 'n/a');

function find(
  phases: Phase[],
  p: Pick<Phase, 'upstream' | 'mode' | 'connections'>,
  target: TargetName,
): Phase | undefined {
  return phases.find(
    (x) => x.upstream === p.upstream && x.mode === p.mode && x.connections === p.connections && x.target === target,
  );
}

function cpuDetail(phase: Phase): string {
  const parts = Object.entries(phase.cpuDetail)
    .filter(([role]) => role !== 'postgres')
    .map(([role, us]) => `${role} ${f0(us)}`);
  const pg = phase.cpuDetail.postgres;
  return parts.join(' + ') + (pg !== undefined ? ` [postgres ${f0(pg)}]` : '');
}

// Figures a saved run from before they existed lacks: shown as n/a.
const steady = (l: LoadResult) =>
  l.steadyP99 === undefined ? 'n/a' : `${f2(l.steadyP50)} / ${f2(l.steadyP99)} (${f2(l.rampS)})`;
const loopDelay = (loop: LoopStats | undefined) => (loop ? `${f2(loop.p99Ms)} / ${f2(loop.maxMs)}` : '');
const gcShare = (loop: LoopStats | undefined) => (loop ? `${Math.round((100 * loop.gcMs) / loop.elapsedMs)}%` : '');

export interface Check {
  name: string;
  measured: string;
  pass: boolean;
  /** A phase behind this check ran under foreign load: the verdict is less certain. */
  disturbed?: boolean;
}

const disturbed = (...phases: (Phase | undefined)[]) => phases.some((p) => p !== undefined && p.foreignLoad > NOISY);

export function checks(report: Report): Check[] {
  const out: Check[] = [];
  const { phases } = report;
  for (const mode of ['json', 'stream'] as const) {
    for (const connections of report.settings.connections) {
      const key = { upstream: 'instant' as const, mode, connections };
      const gw = find(phases, key, 'gateway');
      const bare = find(phases, key, 'bare');
      if (!gw || !bare) continue;
      const pair = pairedFigures(report.paired, mode, connections, NOISY);
      const ratio = pair ? pair.rps : gw.load.rps / bare.load.rps;
      out.push({
        name: `throughput ≥ 0.6× bare proxy — instant ${mode}, ${connections} conns`,
        measured: pair
          ? `${f2(ratio)}× (median of ${pair.rounds} paired rounds)`
          : `${f2(ratio)}× (${f0(gw.load.rps)} vs ${f0(bare.load.rps)} req/s)`,
        pass: ratio >= 0.6,
        disturbed: pair ? pair.disturbed : disturbed(gw, bare),
      });
    }
  }
  for (const mode of ['json', 'stream'] as const) {
    const limit = mode === 'json' ? 110 : 180;
    for (const connections of report.settings.connections) {
      const gw = find(phases, { upstream: 'instant', mode, connections }, 'gateway');
      if (!gw) continue;
      out.push({
        name: `CPU ≤ ${limit} µs per ${mode} request (API + worker + Redis) — instant, ${connections} conns`,
        measured: `${f0(gw.cpuPerReq)} µs`,
        pass: gw.cpuPerReq <= limit,
        disturbed: disturbed(gw),
      });
    }
  }
  for (const mode of ['json', 'stream'] as const) {
    for (const connections of report.settings.connections) {
      const key = { upstream: 'paced' as const, mode, connections };
      const gw = find(phases, key, 'gateway');
      const bare = find(phases, key, 'bare');
      if (!gw || !bare) continue;
      const d50 = gw.load.p50 - bare.load.p50;
      const d99 = gw.load.p99 - bare.load.p99;
      out.push({
        name: `paced added latency p50 ≤ 1.5 ms — ${mode}, ${connections} conns`,
        measured: `${signed(d50)} ms`,
        pass: d50 <= 1.5,
        disturbed: disturbed(gw, bare),
      });
      out.push({
        name: `paced added latency p99 ≤ 7 ms — ${mode}, ${connections} conns`,
        measured: `${signed(d99)} ms`,
        pass: d99 <= 7,
        disturbed: disturbed(gw, bare),
      });
    }
  }
  for (const mode of ['json', 'stream'] as const) {
    for (const connections of report.settings.connections) {
      const key = { upstream: 'instant' as const, mode, connections };
      const gw = find(phases, key, 'gateway');
      const bare = find(phases, key, 'bare');
      if (!gw || !bare) continue;
      const pair = pairedFigures(report.paired, mode, connections, NOISY);
      const ratio = pair ? pair.cpu : gw.cpuPerReq / bare.cpuPerReq;
      out.push({
        name: `CPU per call ≤ 1.6× bare proxy — instant ${mode}, ${connections} conns`,
        measured: pair
          ? `${f2(ratio)}× (median of ${pair.rounds} paired rounds)`
          : `${f2(ratio)}× (${f0(gw.cpuPerReq)} vs ${f0(bare.cpuPerReq)} µs)`,
        pass: ratio <= 1.6,
        disturbed: pair ? pair.disturbed : disturbed(gw, bare),
      });
    }
  }
  const most = Math.max(...report.settings.connections);
  for (const mode of ['json', 'stream'] as const) {
    const key = { upstream: 'instant' as const, mode, connections: most };
    const gw = find(phases, key, 'gateway');
    const bare = find(phases, key, 'bare');
    if (!gw || !bare || gw.load.steadyP99 === undefined) continue;
    const pair = pairedFigures(report.paired, mode, most, NOISY);
    const ratio = pair ? pair.p99 : gw.load.steadyP99 / bare.load.steadyP99;
    out.push({
      name: `p99 ≤ 2× bare proxy once connections are up — instant ${mode}, ${most} conns`,
      measured: pair
        ? `${f2(ratio)}× (median of ${pair.rounds} paired rounds)`
        : `${f2(ratio)}× (${f2(gw.load.steadyP99)} vs ${f2(bare.load.steadyP99)} ms)`,
      pass: ratio <= 2,
      disturbed: pair ? pair.disturbed : disturbed(gw, bare),
    });
  }
  const added = report.ttfb.gateway.p50 - report.ttfb.bare.p50;
  out.push({
    name: 'sequential added time to first byte ≤ 1 ms (median, streaming)',
    measured: `${signed(added)} ms`,
    pass: added <= 1,
  });
  const max = Math.max(...report.settings.connections);
  for (const upstream of ['instant', 'paced'] as const) {
    for (const mode of ['json', 'stream'] as const) {
      const gw = find(phases, { upstream, mode, connections: max }, 'gateway');
      if (!gw) continue;
      const bad = gw.load.errors + gw.load.timeouts + gw.load.non2xx;
      out.push({
        name: `zero errors at ${max} connections — ${upstream} ${mode}`,
        measured: `${bad} (errors ${gw.load.errors}, timeouts ${gw.load.timeouts}, non-2xx ${gw.load.non2xx})`,
        pass: bad === 0,
        disturbed: disturbed(gw),
      });
    }
  }
  return out;
}

export function renderMarkdown(report: Report): string {
  const lines: string[] = [];
  const { phases } = report;
  lines.push(`Command: \`${report.command}\`  `);
  lines.push(`Date: ${report.date}  `);
  lines.push(`Machine: ${report.machine}  `);
  lines.push(
    `Settings: ${report.settings.durationS} s measured + ${report.settings.warmupS} s warm-up per phase, ` +
      `connections ${report.settings.connections.join(' and ')}, sequential TTFB over ${report.settings.ttfbN} requests`,
  );
  lines.push('');
  lines.push('### Load (closed loop, autocannon)');
  lines.push('');
  lines.push(
    '| scenario | conns | target | req/s | × bare | p50 ms | p99 ms | steady p50 / p99 ms (ramp s) | autocannon p99 ms | loop delay p99 / max ms | GC | errors / non-2xx | CPU µs/req | × bare | CPU detail µs/req | host busy / foreign |',
  );
  lines.push('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|');
  for (const p of phases) {
    const bare = find(phases, p, 'bare');
    const rpsRatio = bare && p.target !== 'bare' ? `${f2(p.load.rps / bare.load.rps)}×` : '';
    const cpuRatio = bare && p.target !== 'bare' ? `${f2(p.cpuPerReq / bare.cpuPerReq)}×` : '';
    lines.push(
      `| ${p.upstream} ${p.mode} | ${p.connections} | ${TARGET_LABEL[p.target]} | ${f0(p.load.rps)} | ${rpsRatio} | ${f2(p.load.p50)} | ${f2(p.load.p99)} | ` +
        `${steady(p.load)} | ${f0(p.load.autocannonP99 ?? Number.NaN)} | ${loopDelay(p.loop)} | ${gcShare(p.loop)} | ` +
        `${p.load.errors + p.load.timeouts} / ${p.load.non2xx} | ${f0(p.cpuPerReq)} | ${cpuRatio} | ${cpuDetail(p)} | ${Math.round(p.hostBusy * 100)}% / ${Math.round(p.foreignLoad * 100)}%${p.foreignLoad > NOISY ? ' ⚠' : ''}${(p.attempts ?? 1) > 1 ? ` (best of ${p.attempts})` : ''} |`,
    );
  }
  const noisy = phases.filter((p) => p.foreignLoad > NOISY).length;
  if (noisy > 0) {
    lines.push('');
    lines.push(
      `⚠ ${noisy} of ${phases.length} phases ran while processes outside the benchmark used more than ${NOISY * 100}% of the machine; ` +
        'their throughput, latency and (for Redis) CPU figures are skewed by that load.',
    );
  }
  lines.push('');
  lines.push('### Added latency, paced upstream (20 ms to first byte, chunks 2 ms apart)');
  lines.push('');
  lines.push(
    '| scenario | conns | gateway p50 / p99 ms | − bare proxy p50 / p99 | − simulator p50 / p99 | bare − simulator p50 / p99 |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|');
  for (const p of phases.filter((x) => x.upstream === 'paced' && x.target === 'gateway')) {
    const bare = find(phases, p, 'bare');
    const sim = find(phases, p, 'sim');
    const d = (a: Phase | undefined, b: Phase | undefined) =>
      a && b ? `${signed(a.load.p50 - b.load.p50)} / ${signed(a.load.p99 - b.load.p99)}` : 'n/a';
    lines.push(
      `| paced ${p.mode} | ${p.connections} | ${f2(p.load.p50)} / ${f2(p.load.p99)} | ${d(p, bare)} | ${d(p, sim)} | ${d(bare, sim)} |`,
    );
  }
  lines.push('');
  lines.push('### Sequential time to first body byte (one connection, streaming, instant upstream)');
  lines.push('');
  lines.push('| target | n | p50 ms | p90 ms | p99 ms | p50 − bare proxy | p50 − simulator |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|');
  for (const target of ['sim', 'bare', 'gateway'] as const) {
    const t = report.ttfb[target];
    lines.push(
      `| ${TARGET_LABEL[target]} | ${t.n}${t.failures ? ` (${t.failures} failed)` : ''} | ${f2(t.p50)} | ${f2(t.p90)} | ${f2(t.p99)} | ` +
        `${target === 'bare' ? '' : signed(t.p50 - report.ttfb.bare.p50)} | ${target === 'sim' ? '' : signed(t.p50 - report.ttfb.sim.p50)} |`,
    );
  }
  lines.push('');
  lines.push(...renderPaired(report.paired));
  lines.push('### Targets (gateway with key validation, balance reservation and usage recording on)');
  lines.push('');
  lines.push('| target | measured | result |');
  lines.push('|---|---|---|');
  for (const c of checks(report))
    lines.push(`| ${c.name} | ${c.measured}${c.disturbed ? ' ⚠' : ''} | ${c.pass ? 'PASS' : '**FAIL**'} |`);
  if (checks(report).some((c) => c.disturbed))
    lines.push('', '⚠ = a phase behind this figure ran under foreign load (see the load table).');
  lines.push('');
  lines.push('### Usage records the gateway wrote during the run');
  lines.push('');
  lines.push('| status | error code | stream | records |');
  lines.push('|---:|---|---|---:|');
  for (const u of report.usage)
    lines.push(`| ${u.status_code} | ${u.error_code ?? ''} | ${u.stream} | ${u.n.toLocaleString('en-US')} |`);
  lines.push('');
  lines.push(
    "CPU µs/req = (utime + stime from /proc/<pid>/stat, summed over the target's processes during the phase and the usage drain after it) ÷ 2xx responses. " +
      'Gateway = API + worker + Redis server; Postgres backends of the bench database are shown in brackets and not counted. ' +
      'Bare proxy and simulator = their own process. "steady" = the requests sent once every connection had its first answer (the ramp of connections left out; its length in brackets); p50 and p99 cover every request, autocannon p99 is its own histogram (whole ms). "loop delay" = how late a 5 ms timer fired in the API or bare proxy process (perf_hooks.monitorEventLoopDelay), GC = share of the phase spent in GC pauses there. "host busy" = share of both cores in use during the phase; "foreign" = the part of it used by processes outside the benchmark (other jobs on the machine); a phase with more than 10% foreign load is measured again while the run\'s retry budget lasts, keeping the least disturbed attempt.',
  );
  return `${lines.join('\n')}\n`;
}
