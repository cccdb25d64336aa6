// Re-renders a saved run: node dist-bench/bench/render.js [bench/results/latest.json] > report.md
import { readFile } from 'node:fs/promises';
import { renderMarkdown, type Report } from './lib/report.js';

const file = process.argv[2] ?? 'bench/results/latest.json';
process.stdout.write(renderMarkdown(JSON.parse(await readFile(file, 'utf8')) as Report));
