import { existsSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page, Response } from 'playwright-core';
import { createRequestListener } from '../../api/app.js';
import { siteCaptcha } from '../../api/console-site/captcha.js';
import { startConsoleSite, type ConsoleSite } from '../../api/console-site/server.js';
import { launchChromium } from '../support/browser.js';
import { startSecurityGateway, type SecurityGateway } from '../console/security-gateway.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BUILT_SITE = path.join(ROOT, 'dist/console');

/** The console site in front of a real gateway (with a real SMTP server), and one Chromium. */
export interface SiteHarness {
  sec: SecurityGateway;
  site: ConsoleSite;
  browser: Browser;
  close(): Promise<void>;
}

export interface SiteHarnessOptions {
  /** More gateway settings; a function of the site's origin, as some name it (OpenID providers). */
  env?: (siteUrl: string) => Record<string, string>;
  /** The gateway's CAPTCHA_TEST_TOKEN, handed to the site as its development captcha. */
  captchaTestToken?: string;
  /**
   * The site on `http://127.0.0.1:<port>` calling the API at `http://localhost:<port>`: two
   * sites to the browser, so no session cookie crosses and the pages sign in with bearer tokens.
   */
  crossSite?: boolean;
  /** The object store's origin browsers upload to (S3 presigned PUTs), for the site's CSP. */
  uploadOrigin?: string;
  /** Job queues the gateway's workers serve besides `mail` (e.g. `dataset-export`). */
  moreQueues?: string;
}

export async function startSiteHarness(options: SiteHarnessOptions = {}): Promise<SiteHarness> {
  const env = options.env ?? (() => ({}));
  const token = options.captchaTestToken;
  if (!existsSync(path.join(BUILT_SITE, 'index.html'))) {
    throw new Error(
      `the console site is not built (${BUILT_SITE}): run \`npm run build\` (npm test does) before these tests`,
    );
  }
  // The site listens first: its origin is the gateway's CONSOLE_ORIGIN (and so the passkey
  // origin), as `npm start` sets it. Then /api/v1 goes to the gateway's own handler, as there.
  let gatewayHandler: RequestListener | undefined;
  const started = await startConsoleSite({
    port: 0,
    host: '127.0.0.1',
    root: BUILT_SITE,
    gateway: (req, res) => gatewayHandler?.(req, res),
    gatewayUrl: () => sec.gw.url,
    captcha: siteCaptcha(undefined, token),
    uploadOrigin: options.uploadOrigin,
    ...(options.crossSite && { apiBase: () => sec.gw.url.replace('//127.0.0.1:', '//localhost:') }),
  });
  const site = options.crossSite ? { ...started, url: started.url.replace('//localhost:', '//127.0.0.1:') } : started;
  const sec: SecurityGateway = await startSecurityGateway({
    ...(options.moreQueues && { moreQueues: options.moreQueues }),
    env: { CONSOLE_ORIGIN: site.url, ...(token && { CAPTCHA_TEST_TOKEN: token }), ...env(site.url) },
  });
  gatewayHandler = createRequestListener(sec.gw.services);
  let browser: Browser;
  try {
    browser = await launchChromium();
  } catch (err) {
    await site.close();
    await sec.close();
    throw new Error(
      `the console browser tests need Chromium (Debian's /usr/bin/chromium, or the @sparticuz/chromium package): ${(err as Error).message}`,
    );
  }
  return {
    sec,
    site,
    browser,
    async close() {
      await browser.close();
      await site.close();
      await sec.close();
    },
  };
}

/** Signs in through the page; resolves once the console shows the signed-in navigation. */
export async function signIn(page: Page, site: ConsoleSite, email: string, password = 'password123'): Promise<void> {
  await page.goto(site.url);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

let axeSource: string | undefined;

/** axe-core run inside the page: the serious and critical violations, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated over DevTools, not added as a <script>: the site's CSP rightly refuses inline scripts.
  await page.evaluate((axeSource ??= await readFile(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8')));
  // A string, so this file's TypeScript (no DOM types) leaves the page's code alone.
  const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as {
    violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`);
}

/** Collects Content-Security-Policy violations and page errors, to assert there were none. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    // A refused API call (401, 400) is logged by the browser as a failed load: an answer, not a problem.
    if (m.type() === 'error' && !/^Failed to load resource/.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  return problems;
}

/**
 * Every console API answer the page receives (`apiOrigin` + /api/v1/…), as the network handed it
 * to the page's fetch: `texts()` waits for the bodies read so far.
 */
export function watchApiAnswers(page: Page, apiOrigin: string): { texts(): Promise<string[]> } {
  const reads: Promise<string>[] = [];
  page.on('response', (r: Response) => {
    if (r.url().startsWith(`${apiOrigin}/api/v1/`) && r.request().method() !== 'OPTIONS')
      reads.push(r.text().catch(() => ''));
  });
  return { texts: () => Promise.all(reads) };
}
