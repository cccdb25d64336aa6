// Child processes of the benchmark and the CPU time the kernel accounts to them.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface Child {
  name: string;
  pid: number;
  proc: ChildProcess;
  /** Sends SIGTERM, then SIGKILL when the process does not exit within the grace period. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** stderr goes to <logDir>/<name>.log (stdout stays readable for the first JSON line). */
  logDir: string;
  /** Flags for node itself, before the script (e.g. --cpu-prof). */
  nodeArgs?: string[];
}

/** Starts `node <script> ...args` directly (no npm wrapper), so the pid is the Node process itself. */
export function spawnNode(name: string, script: string, args: string[], options: SpawnOptions): Child {
  const proc = spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (proc.pid === undefined) throw new Error(`could not start ${name}`);
  const log = createWriteStream(path.join(options.logDir, `${name}.log`));
  proc.stderr?.pipe(log, { end: false });
  const child: Child = {
    name,
    pid: proc.pid,
    proc,
    async stop(graceMs = 5_000) {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = once(proc, 'exit');
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  return child;
}

/** Reads the first stdout line of a child that prints `{"url": ...}` when it listens. */
export async function readUrl(child: Child, timeoutMs = 15_000): Promise<string> {
  const { input: line } = await readLineMatching(child, /^\{.*"url"\s*:/, timeoutMs);
  const { url } = JSON.parse(line) as { url?: unknown };
  if (typeof url !== 'string') throw new Error(`${child.name} printed no url: ${line}`);
  return url;
}

/** The first stdout line of a child that matches `pattern` (e.g. `npm start`'s `console: <url>`) → its match. */
export async function readLineMatching(child: Child, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  const stdout = child.proc.stdout;
  if (!stdout) throw new Error(`${child.name} has no stdout`);
  const lines = createInterface({ input: stdout });
  const timer = setTimeout(() => lines.close(), timeoutMs);
  try {
    for await (const line of lines) {
      const match = pattern.exec(line);
      if (match) return match;
    }
  } finally {
    clearTimeout(timer);
    stdout.resume();
  }
  throw new Error(`${child.name} printed no line like ${pattern} (exit code ${child.proc.exitCode})`);
}

/** A port that was free a moment ago (for processes that cannot report the port they picked). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process (all its threads), in clock ticks; undefined when it is gone. */
export function cpuTicks(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Field 2 (comm) is in parentheses and may contain spaces; fields after it are space separated.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field N is fields[N - 3]: utime = 14, stime = 15.
  return Number(fields[11]) + Number(fields[12]);
}

/** Busy and total jiffies of the whole machine (all cores), from the first line of /proc/stat. */
export function hostJiffies(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** A snapshot of several processes' CPU counters, to subtract from a later one. */
export type CpuSnapshot = Map<number, number>;

export function snapshot(pids: Iterable<number>): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  for (const pid of pids) {
    const ticks = cpuTicks(pid);
    if (ticks !== undefined) out.set(pid, ticks);
  }
  return out;
}

/** CPU microseconds spent between two snapshots by the pids present in both. */
export function cpuMicros(before: CpuSnapshot, after: CpuSnapshot, pids?: Iterable<number>): number {
  let ticks = 0;
  for (const pid of pids ?? before.keys()) {
    const a = before.get(pid);
    const b = after.get(pid);
    if (a !== undefined && b !== undefined) ticks += b - a;
  }
  return (ticks * 1_000_000) / CLOCK_TICKS_PER_SECOND;
}

/** User and system CPU time, in clock ticks, of one process or one thread (a /proc/…/stat path). */
export interface CpuSplit {
  user: number;
  system: number;
}

function readSplit(statPath: string): CpuSplit | undefined {
  let stat: string;
  try {
    stat = readFileSync(statPath, 'utf8');
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]), system: Number(fields[12]) };
}

/**
 * A process's CPU split into its main thread (the JavaScript event loop) and all its other threads
 * (V8's garbage-collector and compiler helpers, libuv's pool), each as user and system time.
 */
export function threadSplit(pid: number): { main: CpuSplit; others: CpuSplit } | undefined {
  const all = readSplit(`/proc/${pid}/stat`);
  const main = readSplit(`/proc/${pid}/task/${pid}/stat`);
  if (!all || !main) return undefined;
  return { main, others: { user: all.user - main.user, system: all.system - main.system } };
}
