// A gateway process (`dist/bin/<name>.js`) whose log is kept: every stdout and stderr line, for
// tests that read what the process logs (the access log, what must never be logged).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort, ROOT } from './processes.js';

export interface LoggedProcess {
  /** The API's URL (for `api`); the metrics URL for both. */
  url: string;
  metricsUrl: string;
  child: ChildProcess;
  /** Every line written so far, stdout and stderr. */
  lines(): string[];
  /** The JSON log lines (pino) written so far. */
  records(): Record<string, unknown>[];
  stop(): Promise<void>;
}

/** Logs at `info` unless `env` says otherwise (the metrics port is read from the log: `info` or below). */
export async function spawnLogged(bin: 'api' | 'worker', env: Record<string, string>): Promise<LoggedProcess> {
  const port = await freePort();
  const inherited = Object.fromEntries(
    ['PATH', 'HOME', 'REDIS_URL'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])),
  );
  const child = spawn(process.execPath, [path.join(ROOT, `dist/bin/${bin}.js`)], {
    cwd: ROOT,
    env: {
      ...inherited,
      HOST: '127.0.0.1',
      PORT: String(port),
      // Any free port, read back from the process's log line (a port picked here could be taken by
      // another test's process before this one binds it).
      METRICS_PORT: '0',
      WORKER_METRICS_PORT: '0',
      ROUTING_BREAKER_THRESHOLD: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: string[] = [];
  let partial = '';
  const take = (d: Buffer) => {
    const text = partial + d.toString();
    const parts = text.split('\n');
    partial = parts.pop()!;
    out.push(...parts);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', (d: Buffer) => out.push(...d.toString().split('\n').filter(Boolean)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  let metricsUrl = '';
  // A generous bound: it waits on the process saying it listens, and two busy cores can take this long.
  const deadline = Date.now() + 45_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${bin}.js exited with ${child.exitCode}: ${out.join('\n')}`);
    const said = out.find((line) => line.includes('"msg":"/healthz and /metrics listening"'));
    if (said) metricsUrl = `http://127.0.0.1:${(JSON.parse(said) as { port: number }).port}`;
    const ok =
      metricsUrl !== '' &&
      (await fetch(bin === 'api' ? `${url}/healthz` : `${metricsUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      ));
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${bin}.js did not start: ${out.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    metricsUrl,
    child,
    lines: () => (partial ? [...out, partial] : [...out]),
    records: () =>
      out.flatMap((line) => {
        if (!line.startsWith('{')) return [];
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
