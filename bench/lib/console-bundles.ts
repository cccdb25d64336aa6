// The console site's built bundles (dist/console, `npm run build:console`), gzipped as a CDN would
// serve them: what the first visit downloads, and what each page adds when it is first opened.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

interface ManifestChunk {
  file: string;
  name?: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

export interface PageBundle {
  /** `SignInPage` (in the entry), `KeysPage`, ... */
  page: string;
  /** Its own chunk, gzipped bytes (the sign-in page: the entry chunk). */
  ownBytes: number;
  /** Its own chunk and the shared chunks (JS and CSS) it loads that the first visit did not, gzipped. */
  addedBytes: number;
}

export interface ConsoleBundles {
  /** The first visit (the sign-in page): the entry chunk and its static imports, gzipped. */
  firstLoad: { jsBytes: number; cssBytes: number; files: string[] };
  pages: PageBundle[];
}

/** Reads Vite's manifest (`.vite/manifest.json`, web/vite.config.ts) of the built site in `dir`. */
export function consoleBundles(dir: string): ConsoleBundles {
  const manifest = JSON.parse(readFileSync(path.join(dir, '.vite/manifest.json'), 'utf8')) as Record<
    string,
    ManifestChunk
  >;
  const sizes = new Map<string, number>();
  const gz = (file: string) => {
    if (!sizes.has(file)) sizes.set(file, gzipSync(readFileSync(path.join(dir, file))).length);
    return sizes.get(file)!;
  };
  // A chunk with everything it imports statically: its files (JS and CSS).
  const closure = (key: string, seen = new Set<string>()): Set<string> => {
    const chunk = manifest[key];
    if (!chunk || seen.has(chunk.file)) return seen;
    seen.add(chunk.file);
    for (const css of chunk.css ?? []) seen.add(css);
    for (const imported of chunk.imports ?? []) closure(imported, seen);
    return seen;
  };
  const entryKey = Object.keys(manifest).find((k) => manifest[k]!.isEntry);
  if (!entryKey) throw new Error(`no entry chunk in ${dir}/.vite/manifest.json: build the console site first`);
  const first = closure(entryKey);
  const total = (files: Iterable<string>, ext: string) =>
    [...files].filter((f) => f.endsWith(ext)).reduce((sum, f) => sum + gz(f), 0);
  const pages: PageBundle[] = [
    {
      page: 'SignInPage',
      ownBytes: gz(manifest[entryKey]!.file),
      addedBytes: total(first, '.js') + total(first, '.css'),
    },
  ];
  for (const key of manifest[entryKey]!.dynamicImports ?? []) {
    const added = [...closure(key)].filter((f) => !first.has(f));
    pages.push({
      page: path.basename(key).replace(/\.tsx?$/, ''),
      ownBytes: gz(manifest[key]!.file),
      addedBytes: total(added, '.js') + total(added, '.css'),
    });
  }
  return {
    firstLoad: { jsBytes: total(first, '.js'), cssBytes: total(first, '.css'), files: [...first] },
    pages,
  };
}
