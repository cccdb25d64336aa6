// Reads a V8 CPU profile (`node --cpu-prof`): self time per function, and the inclusive time of
// chosen functions (every sample with the function anywhere on its stack counts once).
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  /** Sampled time, µs, without `(idle)`. */
  busyUs: number;
  /** [function, self µs], largest first. */
  self: [string, number][];
  inclusiveUs(match: (fn: string) => boolean): number;
  /** Self time grouped by where the code lives: an npm package, the gateway's own code, Node, V8. */
  byOrigin(): [string, number][];
}

/** The newest `.cpuprofile` in dir, if any. */
export async function newestProfile(dir: string): Promise<string | undefined> {
  let best: { file: string; mtime: number } | undefined;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.endsWith('.cpuprofile')) continue;
    const file = path.join(dir, name);
    const mtime = (await stat(file)).mtimeMs;
    if (!best || mtime > best.mtime) best = { file, mtime };
  }
  return best?.file;
}

export async function summarizeProfile(file: string, root: string): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const rootUrl = `file://${root}/`;
  const label = (n: ProfileNode) => {
    const f = n.callFrame;
    const name = f.functionName || '(anonymous)';
    if (!f.url) return name;
    const where = f.url.includes('/node_modules/')
      ? f.url.replace(/^.*node_modules\//, '')
      : f.url.startsWith(rootUrl)
        ? f.url
            .slice(rootUrl.length)
            .replace(/^dist\//, '')
            .replace(/\.js$/, '.ts')
        : f.url;
    return `${name} (${where}:${f.lineNumber + 1})`;
  };
  const self = new Map<string, number>();
  const nodeTime = new Map<number, number>();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    busy += dt;
    nodeTime.set(id, (nodeTime.get(id) ?? 0) + dt);
    const l = label(node);
    self.set(l, (self.get(l) ?? 0) + dt);
  }
  return {
    busyUs: busy,
    self: [...self].sort((a, b) => b[1] - a[1]),
    byOrigin() {
      const groups = new Map<string, number>();
      for (const [fn, us] of self) {
        const where = /\(([^)]*)\)$/.exec(fn)?.[1] ?? '';
        let origin: string;
        if (!where.includes(':')) origin = fn.startsWith('(') ? fn : 'native / V8 builtins';
        else if (where.startsWith('node:')) origin = 'Node.js core (node:*)';
        else if (/^(api|shared|workers|bin)\//.test(where))
          origin = `gateway: ${where.split('/').slice(0, 2).join('/')}`;
        else if (where.startsWith('file://')) origin = 'other files';
        else origin = `npm: ${where.startsWith('@') ? where.split('/').slice(0, 2).join('/') : where.split('/')[0]}`;
        groups.set(origin, (groups.get(origin) ?? 0) + us);
      }
      return [...groups].sort((a, b) => b[1] - a[1]);
    },
    inclusiveUs(match) {
      let total = 0;
      for (const [id, dt] of nodeTime) {
        for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
          if (match(label(byId.get(cur)!))) {
            total += dt;
            break;
          }
        }
      }
      return total;
    },
  };
}
