// Counting what the gateway asks of Redis: `INFO commandstats` deltas (the whole server), which
// process a Redis connection belongs to (from /proc), and a MONITOR trace attributed to processes
// and, for EVALSHA, to the gateway script by its SHA-1.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { CREDIT, LOAD_BALANCE, LOAD_QUOTA } from '../../shared/billing/scripts.js';
import { ACK_USAGE, CLAIM_USAGE } from '../../shared/usage/scripts.js';
import { CONSUME, PEEK, RENEW, STEP } from '../../shared/limits/scripts.js';

export interface CommandStat {
  calls: number;
  usec: number;
}

/** `INFO commandstats` as command name → {calls, usec} (sub-commands as `xinfo|groups`). */
export async function commandStats(redis: Redis): Promise<Map<string, CommandStat>> {
  const info = await redis.info('commandstats');
  const out = new Map<string, CommandStat>();
  for (const line of info.split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line.trim());
    if (m) out.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  }
  return out;
}

export function statsDelta(
  before: Map<string, CommandStat>,
  after: Map<string, CommandStat>,
): Map<string, CommandStat> {
  const out = new Map<string, CommandStat>();
  for (const [name, a] of after) {
    const b = before.get(name) ?? { calls: 0, usec: 0 };
    if (a.calls > b.calls) out.set(name, { calls: a.calls - b.calls, usec: a.usec - b.usec });
  }
  return out;
}

/** The gateway's Lua scripts by SHA-1, as ioredis sends them with EVALSHA. */
export const SCRIPT_NAMES: ReadonlyMap<string, string> = new Map(
  Object.entries({ STEP, PEEK, RENEW, CONSUME, LOAD_BALANCE, LOAD_QUOTA, CREDIT, CLAIM_USAGE, ACK_USAGE }).map(
    ([name, lua]) => [createHash('sha1').update(lua).digest('hex'), name.toLowerCase()],
  ),
);

/** BullMQ's Lua scripts by SHA-1 (`bullmq:<name>`), read from its package, for naming EVALSHA lines. */
export async function bullmqScriptNames(root: string): Promise<Map<string, string>> {
  const dir = path.join(root, 'node_modules/bullmq/dist/esm/scripts');
  const out = new Map<string, string>();
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.js') && f !== 'index.js');
  } catch {
    return out;
  }
  for (const file of files) {
    try {
      const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as Record<
        string,
        { name?: string; content?: string }
      >;
      for (const v of Object.values(mod)) {
        if (v && typeof v.content === 'string')
          out.set(createHash('sha1').update(v.content).digest('hex'), `bullmq:${v.name ?? file}`);
      }
    } catch {
      // a file that is not a plain script module
    }
  }
  return out;
}

/** Local `ip:port` of every TCP socket to `serverPort`, mapped to the pid that holds it. */
function socketsByPid(pids: number[]): Map<string, number> {
  const inodeToPid = new Map<string, number>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodeToPid.set(m[1]!, pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  const out = new Map<string, number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const pid = inodeToPid.get(f[9]!);
      if (pid === undefined) continue;
      const [hexIp, hexPort] = f[1]!.split(':');
      const port = parseInt(hexPort!, 16);
      // IPv4 in /proc/net/tcp is little-endian hex; loopback is all we need to recognise.
      const ip =
        hexIp!.length === 8
          ? hexIp!
              .match(/../g)!
              .reverse()
              .map((h) => parseInt(h, 16))
              .join('.')
          : '::';
      out.set(`${ip}:${port}`, pid);
    }
  }
  return out;
}

/** Maps Redis client addresses (`ip:port` as CLIENT LIST / MONITOR show them) to role names. */
export function clientOwners(roles: Record<string, number[]>): Map<string, string> {
  const pidRole = new Map<number, string>();
  for (const [role, pids] of Object.entries(roles)) for (const pid of pids) pidRole.set(pid, role);
  const out = new Map<string, string>();
  for (const [addr, pid] of socketsByPid([...pidRole.keys()])) out.set(addr, pidRole.get(pid)!);
  return out;
}

/** Redis clients not owned by any of `roles` that were active within the last `withinS` seconds. */
export async function foreignActiveClients(
  redis: Redis,
  roles: Record<string, number[]>,
  withinS: number,
): Promise<string[]> {
  const owners = clientOwners(roles);
  const list = String(await redis.call('CLIENT', 'LIST'));
  const out: string[] = [];
  for (const line of list.split('\n')) {
    const addr = /\baddr=(\S+)/.exec(line)?.[1];
    const idle = Number(/\bidle=(\d+)/.exec(line)?.[1] ?? '0');
    const cmd = /\bcmd=(\S+)/.exec(line)?.[1] ?? '';
    if (!addr || owners.has(addr) || cmd === 'client|list' || cmd === 'monitor') continue;
    if (idle <= withinS) out.push(`${addr} (${cmd}, idle ${idle}s)`);
  }
  return out;
}

export interface TracedCommand {
  /** Role of the connection that sent it; `lua` for commands run inside a script. */
  role: string;
  /** Lower-case command; EVALSHA as `evalsha:<script name>`. */
  command: string;
  /** For commands inside a script: the traced script call they belong to (`role evalsha:<name>`). */
  inScript?: string;
}

/**
 * Runs `fn` while MONITOR records every command the server executes, and keeps those sent by the
 * `roles` processes (plus the commands run inside their scripts). MONITOR slows Redis down: use it
 * on a few sequential calls, never on a timed phase.
 */
export async function monitorTrace(
  redisUrl: string,
  roles: Record<string, number[]>,
  fn: () => Promise<void>,
  extraScripts: ReadonlyMap<string, string> = new Map(),
): Promise<TracedCommand[]> {
  const raw: { args: string[]; source: string }[] = [];
  const conn = new Redis(redisUrl, { lazyConnect: true });
  await conn.connect();
  const monitor = await conn.monitor();
  monitor.on('monitor', (_time: string, args: string[], source: string) => raw.push({ args, source }));
  try {
    await new Promise((r) => setTimeout(r, 100));
    await fn();
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    monitor.disconnect();
    conn.disconnect();
  }
  const owners = clientOwners(roles);
  const out: TracedCommand[] = [];
  // Commands inside a script follow its EVALSHA line (a script runs atomically).
  let currentScript: string | undefined;
  for (const { args, source } of raw) {
    const name = String(args[0] ?? '').toLowerCase();
    if (source === 'lua') {
      if (currentScript) out.push({ role: 'lua', command: name, inScript: currentScript });
      continue;
    }
    const role = owners.get(source);
    if (!role) {
      currentScript = undefined;
      continue;
    }
    if (name === 'evalsha' || name === 'eval') {
      const sha = name === 'evalsha' ? String(args[1]) : createHash('sha1').update(String(args[1])).digest('hex');
      let script = SCRIPT_NAMES.get(sha) ?? extraScripts.get(sha) ?? `other (${sha.slice(0, 8)})`;
      // A STEP call carries a batch of admissions (A) and finishes (F): named by what it carries.
      if (script === 'step') script = stepOps(args.slice(3).map(String));
      const command = `${name}:${script}`;
      currentScript = `${role} ${command}`;
      out.push({ role, command });
    } else {
      currentScript = undefined;
      out.push({ role, command: name });
    }
  }
  return out;
}

/** `admit`, `finish`, or e.g. `step(2 admit + 1 finish + 1 grant)` for a batched STEP call (its op markers). */
function stepOps(argv: string[]): string {
  const { A, F, G, R } = stepOpCounts(argv);
  if (A === 1 && F + G + R === 0) return 'admit';
  if (F === 1 && A + G + R === 0) return 'finish';
  const parts = [`${A} admit`, `${F} finish`, ...(G > 0 ? [`${G} grant`] : []), ...(R > 0 ? [`${R} give-back`] : [])];
  return `step(${parts.join(' + ')})`;
}

/** Admissions, finishes, grants and rate give-backs in the arguments of one STEP call (after its numkeys). */
export function stepOpCounts(argv: string[]): { A: number; F: number; G: number; R: number } {
  // Each operation is a marker and its fields, laid out as the STEP script's comment says.
  const counts = { A: 0, F: 0, G: 0, R: 0 };
  let i = 0;
  while (i < argv.length) {
    const op = argv[i];
    if (op === 'A' || op === 'G') {
      counts[op]++;
      if (op === 'G') i += 3; // requests, slots, room
      i += 7; // marker, now, id, amount, expiry, bal, resv
      i += argv[i] === '1' ? 11 : 1; // capped: the counters, caps and budget
      const nRates = Number(argv[i]);
      i += 1 + (nRates > 0 ? 1 + 4 * nRates : 0);
      const nConc = Number(argv[i]);
      i += 1 + (nConc > 0 ? 2 + 3 * nConc : 0);
    } else if (op === 'R') {
      counts.R++;
      i += 3 + 5 * Number(argv[i + 2]);
      i += 1 + 2 * Number(argv[i]);
    } else {
      counts.F++;
      i += 17; // marker and the 16 fixed fields
      const nTpm = Number(argv[i]);
      i += 1 + (nTpm > 0 ? 1 + 2 * nTpm : 0);
      i += 1 + Number(argv[i]);
    }
  }
  return counts;
}
