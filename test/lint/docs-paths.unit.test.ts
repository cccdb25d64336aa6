import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The docs name files and link to each other; a move in the code must not leave them pointing at
// nothing. Every backticked repository path and every relative link of the front door, the bench
// README and docs/ must resolve in the tree as it is.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TOP_FOLDERS = ['api', 'shared', 'workers', 'bin', 'tools', 'bench', 'web', 'clients', 'test', 'migrations'];
const MORE_FOLDERS = ['docs', 'scripts'];

function markdownUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(rel);
    return entry.name.endsWith('.md') ? [rel] : [];
  });
}

const DOCS = ['README.md', 'bench/README.md', ...markdownUnder('docs')];

/** Where code comments cite the docs (a rule several files obey lives once in docs/, and the code points there). */
const CODE_FOLDERS = [...TOP_FOLDERS, 'scripts'].filter((dir) => dir !== 'migrations');
const CODE = /\.(ts|tsx|mjs|js|py|lua)$/;

function codeUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', 'dist', 'results'].includes(entry.name) ? [] : codeUnder(rel);
    return CODE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [rel] : [];
  });
}

interface Line {
  file: string;
  number: number;
  text: string;
}

/** The lines of a markdown file outside fenced blocks (a fence shows a shell session or a tree, not links). */
function proseLines(file: string): Line[] {
  let fenced = false;
  const lines: Line[] = [];
  readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .forEach((text, index) => {
      if (text.trimStart().startsWith('```')) fenced = !fenced;
      else if (!fenced) lines.push({ file, number: index + 1, text });
    });
  return lines;
}

const where = (line: Line) => `${line.file}:${line.number}`;

/**
 * `shared/limits/admission.ts`, `api/routes/`, `api/generation/handler.ts:answer` (a function or line
 * after the colon), `docs/reference/limits.md#grants-far-from-the-limits`: a path inside one of the repository's folders
 * with an extension or a closing slash. A pattern (`api/routes/*.ts`, `test/protocols/<from>-to-<to>/`)
 * names its folder: the part before the first wildcard. Build output (`clients/dist/…`) is not in the tree.
 */
function repositoryPath(token: string): string | undefined {
  const bare = token.replace(/#.*$/, '').replace(/:[^/]*$/, '');
  const segments = bare.split('/');
  if (segments.length < 2 || ![...TOP_FOLDERS, ...MORE_FOLDERS].includes(segments[0]!)) return undefined;
  if (/\s/.test(bare) || segments.includes('dist')) return undefined;
  const wildcard = bare.search(/[<>*{}…|$]/);
  if (wildcard !== -1) return bare.slice(0, bare.lastIndexOf('/', wildcard) + 1);
  return bare.endsWith('/') || /\.[a-z0-9]+$/i.test(segments.at(-1)!) ? bare : undefined;
}

/** The ids a link may point at: GitHub's heading slugs (with -1, -2 for repeats) and explicit `<a id>`. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(file)) {
    const heading = /^#{1,6}\s+(.*)$/.exec(text);
    if (heading) {
      const slug = heading[1]!
        .replace(/`/g, '')
        .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
        .trim()
        .toLowerCase()
        .replace(/<[^>]+>/g, '')
        .replace(/[^\p{L}\p{N}\- _]/gu, '')
        .replace(/ /g, '-');
      const repeats = seen.get(slug) ?? 0;
      seen.set(slug, repeats + 1);
      anchors.add(repeats ? `${slug}-${repeats}` : slug);
    }
    for (const id of text.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(id[1]!);
  }
  return anchors;
}

describe('the docs point at what exists', () => {
  const lines = DOCS.flatMap(proseLines);

  it('reads the docs', () => {
    expect(DOCS).toContain(path.join('docs', 'architecture.md'));
    expect(lines.length).toBeGreaterThan(1000);
  });

  it('every backticked repository path names a file or folder of the tree', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const line of lines) {
      for (const code of line.text.matchAll(/`([^`\n]+)`/g)) {
        const target = repositoryPath(code[1]!);
        if (!target) continue;
        checked++;
        if (!existsSync(path.join(ROOT, target))) missing.push(`${where(line)}: ${code[1]}`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  it('every relative link resolves, anchors included', () => {
    const broken: string[] = [];
    for (const line of lines) {
      for (const link of line.text.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = link[1]!;
        if (/^(https?|mailto):/.test(target)) continue;
        const [file, anchor] = target.split('#');
        const resolved = file
          ? path.resolve(path.dirname(path.join(ROOT, line.file)), file)
          : path.join(ROOT, line.file);
        const problem = unresolved(resolved, anchor);
        if (problem) broken.push(`${where(line)}: ${target} (${problem})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every docs page the code cites exists, anchors included', () => {
    const broken: string[] = [];
    let cited = 0;
    for (const file of CODE_FOLDERS.flatMap(codeUnder)) {
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((text, index) => {
          for (const citation of text.matchAll(/\b((?:docs|bench)\/[\w./-]+\.md)(?:#([\w-]+))?/g)) {
            cited++;
            const problem = unresolved(path.join(ROOT, citation[1]!), citation[2]);
            if (problem) broken.push(`${file}:${index + 1}: ${citation[0]} (${problem})`);
          }
        });
    }
    expect(cited).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });
});

/** Why a link's target does not resolve, or undefined when it does. */
function unresolved(file: string, anchor: string | undefined): string | undefined {
  if (!existsSync(file)) return 'no such file';
  if (anchor === undefined) return undefined;
  if (statSync(file).isDirectory() || !file.endsWith('.md')) return 'an anchor on a file that has none';
  return anchorsOf(path.relative(ROOT, file)).has(anchor) ? undefined : `no #${anchor}`;
}
