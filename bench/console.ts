// `npm run bench:console`: the console site's first visit as a browser meets it. (a) the built
// bundles, gzipped: the first load and what each page adds when first opened; (b) the sign-in
// page's time to interactive — navigation start to an enabled `Sign in` button — over N fresh
// browser contexts (empty cache, no cookie) against `npm start`'s demo. See bench/README.md, "Console site".
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../test/support/browser.js';
import { BenchRun } from './lib/bench-run.js';
import { summarize } from './lib/cannon.js';
import { consoleBundles } from './lib/console-bundles.js';
import { startDemo } from './lib/demo.js';
import { pageCondition } from './lib/page-wait.js';
import { commit, f0, f1, machine, pct, table } from './lib/md.js';
import { hostJiffies } from './lib/processes.js';
import { QuietGuard } from './lib/quiet.js';
import { publishResult } from './lib/results.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const num = (name: string, def: number) => (process.env[name] ? Number(process.env[name]) : def);
const N = num('BENCH_CONSOLE_N', 15);
const WARMUP = 2;
const log = (message: string) => process.stderr.write(`[bench:console] ${message}\n`);
const kb = (bytes: number) => f1(bytes / 1024);

/**
 * Runs in the page before its own scripts (added over DevTools, so the site's CSP does not apply):
 * notes `performance.now()` — milliseconds since navigation start — when an enabled `Sign in`
 * submit button is first in the document. Preact attaches the form's handler in the same commit.
 */
const PROBE = `(() => {
  const usable = () => [...document.querySelectorAll('button[type=submit]')].some(
    (b) => b.textContent.trim() === 'Sign in' && !b.disabled);
  new MutationObserver((_, observer) => {
    if (window.__signInUsableAt === undefined && usable()) {
      window.__signInUsableAt = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true, attributes: true });
})();`;

interface Visit {
  /** Navigation start → an enabled Sign in button, ms. */
  usable: number;
  /** The document's last byte. */
  document: number;
  /** The entry script's last byte. */
  script: number;
  /** The last API answer before the form showed (`/api/v1/auth/me`), or NaN without one. */
  api: number;
}

async function visit(browser: Browser, url: string): Promise<Visit> {
  const context = await browser.newContext();
  try {
    await context.addInitScript(PROBE);
    const page = await context.newPage();
    await page.goto(url);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await pageCondition(page, 'window.__signInUsableAt !== undefined');
    return (await page.evaluate(`(() => {
      const resources = performance.getEntriesByType('resource');
      const end = (test) => {
        const ends = resources.filter((r) => test(r.name)).map((r) => r.responseEnd);
        return ends.length ? Math.max(...ends) : NaN;
      };
      return {
        usable: window.__signInUsableAt,
        document: performance.getEntriesByType('navigation')[0].responseEnd,
        script: end((name) => /\\/assets\\/index-[^/]*\\.js$/.test(name)),
        api: end((name) => name.includes('/api/v1/auth/me')),
      };
    })()`)) as Visit;
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  const bundles = consoleBundles(path.join(root, 'dist/console'));
  const run = await BenchRun.start('gw-bench-console', log);
  let ok = false;
  try {
    const demo = await startDemo(run, root, {
      postgresAdminUrl: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    });
    run.onEnd(() => demo.close());
    log(`demo up: console ${demo.consoleUrl}, gateway ${demo.gatewayUrl}`);
    const browser = await launchChromium();
    run.onEnd(() => browser.close());

    // The site's first answers (file reads, the JIT) are not a visitor's.
    for (let i = 0; i < WARMUP; i++) await visit(browser, demo.consoleUrl);
    const quiet = new QuietGuard({
      busy: 0.15,
      waitS: num('BENCH_QUIET_WAIT_S', 20),
      budgetS: num('BENCH_QUIET_BUDGET_S', 60),
      log,
    });
    await quiet.wait();
    const hostBefore = hostJiffies();
    const visits: Visit[] = [];
    for (let i = 0; i < N; i++) visits.push(await visit(browser, demo.consoleUrl));
    const hostAfter = hostJiffies();
    const busy = (hostAfter.busy - hostBefore.busy) / Math.max(1, hostAfter.total - hostBefore.total);
    const of = (pick: (v: Visit) => number) => summarize(visits.map(pick).filter(Number.isFinite));
    const usable = of((v) => v.usable);
    log(`sign-in usable: median ${f0(usable.p50)} ms, p90 ${f0(usable.p90)} ms over ${N} fresh contexts`);

    const { firstLoad } = bundles;
    const lines = [
      `# Console site benchmark (${new Date().toISOString()})`,
      '',
      `Command: \`npm run bench:console\` (\`BENCH_CONSOLE_N=${N}\`). ${machine()}. Commit ${commit(root)}. Chromium headless, \`npm start\`'s demo on loopback.`,
      '',
      `## First load and page bundles (gzipped)`,
      '',
      `First load (the sign-in page): **${kb(firstLoad.jsBytes)} KB of JavaScript** (budget 200 KB) and ${kb(firstLoad.cssBytes)} KB of CSS, ${firstLoad.files.length} files.`,
      '',
      table(
        ['page', 'own chunk, KB', 'downloaded when first opened, KB'],
        bundles.pages.map((p) => [p.page, kb(p.ownBytes), kb(p.addedBytes)]),
        ['l', 'r', 'r'],
      ),
      '',
      '## Sign-in page: time to interactive',
      '',
      `Navigation start → an enabled \`Sign in\` button, ${N} fresh browser contexts (empty cache, no cookie) after ${WARMUP} not counted; the machine was ${pct(busy)} busy meanwhile (both cores, this run included).`,
      '',
      table(
        ['ms from navigation start', 'median', 'p90', 'min', 'max'],
        [
          ['`Sign in` usable', f0(usable.p50), f0(usable.p90), ...minMax(visits.map((v) => v.usable))],
          ['document received', f0(of((v) => v.document).p50), f0(of((v) => v.document).p90), '', ''],
          ['entry script received', f0(of((v) => v.script).p50), f0(of((v) => v.script).p90), '', ''],
          ['`/api/v1/auth/me` answered', f0(of((v) => v.api).p50), f0(of((v) => v.api).p90), '', ''],
        ],
        ['l', 'r', 'r', 'r', 'r'],
      ),
      '',
      `Budget: interactive in ≤ 1,000 ms — ${usable.p50 <= 1000 ? 'met' : '**MISSED**'} at the median, ${usable.p90 <= 1000 ? 'met' : '**MISSED**'} at p90.`,
      '',
    ];
    await publishResult(root, 'console-latest.md', lines.join('\n'));
    ok = true;
  } finally {
    await run.end(ok);
  }
}

const minMax = (xs: number[]) => [f0(Math.min(...xs)), f0(Math.max(...xs))];

await main();
