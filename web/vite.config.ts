import { defineConfig } from 'vite';

// The console site: built into dist/console (npm run build), served by api/console-site/ or any
// static host. Every page but sign-in is its own chunk, loaded when first visited.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    target: 'es2022',
    // No inline module preload polyfill: the CSP allows no inline script.
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
    assetsInlineLimit: 0,
  },
});
