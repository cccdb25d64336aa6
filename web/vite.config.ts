import { gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

/** Prints what the first visit (the sign-in page) downloads: the entry chunk and its static imports. */
function firstLoadReport(): Plugin {
  return {
    name: 'first-load-report',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
      const entry = chunks.find((c) => c.isEntry);
      if (!entry) return;
      const seen = new Set<string>();
      const visit = (name: string) => {
        if (seen.has(name)) return;
        seen.add(name);
        const chunk = chunks.find((c) => c.fileName === name);
        chunk?.imports.forEach(visit);
      };
      visit(entry.fileName);
      const bytes = [...seen].reduce(
        (sum, name) => sum + gzipSync(chunks.find((c) => c.fileName === name)?.code ?? '').length,
        0,
      );
      this.info(
        `first load: ${(bytes / 1024).toFixed(1)} KB of JavaScript gzipped (${seen.size} file${seen.size === 1 ? '' : 's'}; budget 200 KB)`,
      );
    },
  };
}

// The console site: built into dist/console (npm run build), served by api/console-site/ or any
// static host. Every page but sign-in is its own chunk, loaded when first visited.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  publicDir: 'public',
  plugins: [firstLoadReport()],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    target: 'es2022',
    // No inline module preload polyfill: the CSP allows no inline script.
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
    assetsInlineLimit: 0,
    // .vite/manifest.json: which chunk is which page, read by `npm run bench:console` (never served).
    manifest: true,
  },
});
