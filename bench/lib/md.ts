// Markdown helpers for the issue benchmarks' reports.
import { execFileSync } from 'node:child_process';
import os from 'node:os';

export const f0 = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : 'n/a');
export const f1 = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');
export const f2 = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');
export const f3 = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : 'n/a');
export const signed = (v: number, digits = 2) =>
  Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(digits)}` : 'n/a';
export const pct = (v: number) => (Number.isFinite(v) ? `${Math.round(v * 100)}%` : 'n/a');

export function table(header: string[], rows: (string | number)[][], align?: ('l' | 'r')[]): string {
  const sep = header.map((_, i) => ((align?.[i] ?? 'l') === 'r' ? '---:' : '---'));
  return [header, sep, ...rows.map((r) => r.map(String))].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

export function machine(): string {
  return `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}

export function commit(root: string): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' }).trim() !==
      '';
    return dirty ? `${sha} (with uncommitted changes)` : sha;
  } catch {
    return 'unknown';
  }
}

export const verdict = (pass: boolean) => (pass ? 'PASS' : '**FAIL**');
