import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The layers' arrows point down (docs/architecture.md): bin and workers on top, api beside them,
// shared below all three, tools and bench outside the product. Read from the import statements
// themselves, type-only imports included: an arrow is an arrow whether it survives compilation or not.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LAYERS = ['api', 'shared', 'workers', 'bin'];

/** `import … from`, `export … from`, side-effect imports and `import()` with a literal specifier. */
const IMPORT =
  /^\s*(?:import\s+(?:type\s+)?[\w*{][^;]*?from\s*|export\s+(?:type\s+)?[*{][^;]*?from\s*|import\s*)['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

interface Arrow {
  from: string;
  to: string;
  dynamic: boolean;
}

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(rel);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Every import between files of the repository, as paths relative to its root. */
function arrows(layers = LAYERS): Arrow[] {
  const found: Arrow[] = [];
  for (const file of layers.flatMap(sources)) {
    for (const match of readFileSync(path.join(ROOT, file), 'utf8').matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2]!;
      if (!specifier.startsWith('.')) continue;
      const to = path.normalize(path.join(path.dirname(file), specifier)).replace(/\.js$/, '.ts');
      found.push({ from: file, to, dynamic: match[2] !== undefined });
    }
  }
  return found;
}

const top = (file: string) => file.split(path.sep)[0]!;
/** `shared/limits/admission.ts` → `shared/limits`; a file directly in shared/ belongs to no folder. */
const sharedFolder = (file: string) => {
  const parts = file.split(path.sep);
  return parts[0] === 'shared' && parts.length > 2 ? `${parts[0]}/${parts[1]}` : undefined;
};
const show = (a: Arrow) => `${a.from} → ${a.to}`;

describe('the arrows between the layers point down', () => {
  const all = arrows();

  it('reads the import graph', () => {
    expect(all.length).toBeGreaterThan(1000);
    expect(all.some((a) => a.from === path.join('bin', 'start.ts') && a.dynamic)).toBe(true);
  });

  it('workers/ imports nothing from api/', () => {
    expect(all.filter((a) => top(a.from) === 'workers' && top(a.to) === 'api').map(show)).toEqual([]);
  });

  it('shared/ imports nothing from api/, workers/ or bin/', () => {
    const above = new Set(['api', 'workers', 'bin']);
    expect(all.filter((a) => top(a.from) === 'shared' && above.has(top(a.to))).map(show)).toEqual([]);
  });

  it('api/ and bin/ import nothing from tools/ or bench/, but the demo loaded by bin/start.ts in demo mode', () => {
    const outside = new Set(['tools', 'bench']);
    const demo = (a: Arrow) => a.from === path.join('bin', 'start.ts') && a.dynamic;
    expect(
      all.filter((a) => ['api', 'bin'].includes(top(a.from)) && outside.has(top(a.to)) && !demo(a)).map(show),
    ).toEqual([]);
  });

  it('bench/ drives the API as processes: it imports nothing from api/', () => {
    const bench = arrows(['bench']);
    expect(bench.length).toBeGreaterThan(50);
    expect(bench.filter((a) => top(a.to) === 'api').map(show)).toEqual([]);
  });

  it('no two folders of shared/ import each other', () => {
    const edges = new Map<string, Arrow[]>();
    for (const a of all) {
      const from = sharedFolder(a.from);
      const to = sharedFolder(a.to);
      if (!from || !to || from === to) continue;
      const key = `${from} → ${to}`;
      edges.set(key, [...(edges.get(key) ?? []), a]);
    }
    const both: string[] = [];
    for (const [key, there] of edges) {
      const [from, to] = key.split(' → ');
      const back = edges.get(`${to} → ${from}`);
      if (back && from! < to!) both.push(`${from} ⇄ ${to}: ${[...there, ...back].map(show).join('; ')}`);
    }
    expect(both).toEqual([]);
  });
});
