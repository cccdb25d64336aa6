// Paired rounds: the bare proxy and the gateway measured back to back, several times, in alternating
// order. This machine's speed drifts by a third between minutes, which moves one phase of each
// target measured far apart; a ratio taken within a pair, and the median of the pairs, does not drift.
import type { Mode, Phase } from './report.js';

export interface PairedRound {
  mode: Mode;
  connections: number;
  round: number;
  bare: Phase;
  gateway: Phase;
}

export interface PairedFigures {
  rounds: number;
  /** Medians over the rounds of gateway ÷ bare: throughput, CPU per call, steady p99. */
  rps: number;
  cpu: number;
  p99: number;
  /** Some round ran under foreign load. */
  disturbed: boolean;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** The paired figures of one scenario (instant upstream), or undefined when the run has none. */
export function pairedFigures(
  paired: PairedRound[] | undefined,
  mode: Mode,
  connections: number,
  noisy: number,
): PairedFigures | undefined {
  const rounds = (paired ?? []).filter((r) => r.mode === mode && r.connections === connections);
  if (rounds.length === 0) return undefined;
  return {
    rounds: rounds.length,
    rps: median(rounds.map((r) => r.gateway.load.rps / r.bare.load.rps)),
    cpu: median(rounds.map((r) => r.gateway.cpuPerReq / r.bare.cpuPerReq)),
    p99: median(rounds.map((r) => r.gateway.load.steadyP99 / r.bare.load.steadyP99)),
    disturbed: rounds.some((r) => r.gateway.foreignLoad > noisy || r.bare.foreignLoad > noisy),
  };
}

const f = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');

/** The table of every paired round, for the report. */
export function renderPaired(paired: PairedRound[] | undefined): string[] {
  if (!paired || paired.length === 0) return [];
  const lines = [
    '### Paired rounds (instant upstream: bare proxy and gateway back to back, order alternating)',
    '',
    '| scenario | conns | round | bare req/s | gateway req/s | × bare | CPU µs bare / gateway | × bare | steady p99 ms bare / gateway | × bare | foreign bare / gateway |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of paired) {
    const { bare: b, gateway: g } = r;
    lines.push(
      `| instant ${r.mode} | ${r.connections} | ${r.round} | ${f(b.load.rps, 0)} | ${f(g.load.rps, 0)} | ${f(g.load.rps / b.load.rps)}× | ` +
        `${f(b.cpuPerReq, 0)} / ${f(g.cpuPerReq, 0)} | ${f(g.cpuPerReq / b.cpuPerReq)}× | ` +
        `${f(b.load.steadyP99)} / ${f(g.load.steadyP99)} | ${f(g.load.steadyP99 / b.load.steadyP99)}× | ` +
        `${Math.round(b.foreignLoad * 100)}% / ${Math.round(g.foreignLoad * 100)}% |`,
    );
  }
  lines.push('');
  lines.push('The targets below that compare the gateway with the bare proxy take the median of these rounds.');
  lines.push('');
  return lines;
}
