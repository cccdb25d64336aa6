// `npm run console:screenshots`: docs/console/*.png, the console's main pages as the README shows
// them, from `npm start`'s demo. By default it starts a fresh demo of its own (the same pages every
// time, removed at the end); `CONSOLE_URL=http://localhost:8081` takes a demo already running
// instead (it adds a key, calls and a webhook endpoint to the demo account there).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../test/support/browser.js';
import { DEMO_EMAIL, DEMO_PASSWORD } from '../tools/demo/account.js';
import { BenchRun } from './lib/bench-run.js';
import { startDemo } from './lib/demo.js';
import { pageCondition } from './lib/page-wait.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const OUT = path.join(root, 'docs/console');
const DESKTOP = { width: 1200, height: 760 };
const PHONE = { width: 390, height: 780 };
const log = (message: string) => process.stderr.write(`[console:screenshots] ${message}\n`);

/** A console API call with the session token (the demo's own origin forwards /api/v1). */
async function consoleCall(
  consoleUrl: string,
  token: string | undefined,
  method: string,
  route: string,
  body?: unknown,
) {
  const res = await fetch(`${consoleUrl}/api/v1${route}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { data?: Record<string, unknown> };
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
  return json.data ?? {};
}

/** What the pages show: two keys with settings, calls over three models, two presets, a template, a webhook endpoint. */
async function seed(consoleUrl: string, gatewayUrl: string): Promise<void> {
  // No Origin: a script's sign-in, answered the session token (docs/reference/console-api.md).
  const { token } = (await consoleCall(consoleUrl, undefined, 'POST', '/auth/login', {
    identifier: DEMO_EMAIL,
    password: DEMO_PASSWORD,
  })) as { token: string };
  const key = (body: Record<string, unknown>) =>
    consoleCall(consoleUrl, token, 'POST', '/keys', body) as Promise<{ id: string; key: string }>;
  const production = await key({ name: 'production', tags: ['web'], rpm_limit: 600, daily_micro_usd: 2_000_000 });
  const staging = await key({ name: 'staging', tags: ['staging'], monthly_micro_usd: 5_000_000 });
  const calls = [
    ...Array.from({ length: 12 }, (_, i) => [production.key, 'demo-large', `Summarise report ${i}`] as const),
    ...Array.from({ length: 8 }, (_, i) => [production.key, 'demo-small', `Classify ticket ${i}`] as const),
    ...Array.from({ length: 5 }, (_, i) => [staging.key, 'demo-free', `Draft reply ${i}`] as const),
  ];
  for (let i = 0; i < calls.length; i += 5)
    await Promise.all(
      calls.slice(i, i + 5).map(async ([secret, model, text]) => {
        const res = await fetch(`${gatewayUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model, messages: [{ role: 'user', content: text }], max_tokens: 60 }),
        });
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`chat with ${model}: ${res.status}`);
      }),
    );
  await consoleCall(consoleUrl, token, 'POST', '/presets', {
    slug: 'cheap-first',
    models: ['demo-free', 'demo-small'],
  });
  await consoleCall(consoleUrl, token, 'POST', '/presets', {
    slug: 'balanced',
    models: ['demo-large', 'demo-small'],
    strategy: 'weighted',
    weights: [1, 3],
  });
  await consoleCall(consoleUrl, token, 'POST', '/prompt-templates', {
    name: 'support tone',
    versions: [
      { label: 'A', text: 'You are a friendly support agent for {{product|our app}}.', weight: 3 },
      { label: 'B', text: 'Answer briefly and precisely about {{product|our app}}.', weight: 1 },
    ],
    key_ids: [production.id],
  });
  await consoleCall(consoleUrl, token, 'POST', '/webhooks', {
    url: 'https://hooks.example.com/model-gateway',
    events: ['video.completed', 'video.failed', 'batch.completed'],
    description: 'order pipeline',
  });
}

async function signIn(page: Page, consoleUrl: string): Promise<void> {
  await page.goto(consoleUrl);
  await page.getByLabel('Email').fill(DEMO_EMAIL);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

async function shoot(page: Page, name: string): Promise<void> {
  // Nothing still loading, and the focus ring of the last click out of the picture.
  await pageCondition(
    page,
    `![...document.querySelectorAll('[role=status]')].some((e) => e.textContent.startsWith('Loading'))`,
  );
  await page.evaluate('document.activeElement instanceof HTMLElement && document.activeElement.blur()');
  await page.screenshot({ path: path.join(OUT, `${name}.png`) });
  log(`docs/console/${name}.png`);
}

async function screenshots(browser: Browser, consoleUrl: string): Promise<void> {
  const desktop = await browser.newContext({ viewport: DESKTOP, colorScheme: 'light' });
  const page = await desktop.newPage();
  await page.goto(consoleUrl);
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  await shoot(page, 'sign-in');
  await signIn(page, consoleUrl);
  const open = (name: string) => page.getByRole('link', { name, exact: true }).click();

  await page.getByRole('heading', { name: 'Balance' }).waitFor();
  await page.locator('.chart canvas').first().waitFor();
  await shoot(page, 'dashboard');

  await open('Keys');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByLabel('Name').fill('ci pipeline');
  await page.locator('form').getByRole('button', { name: 'Create key' }).click();
  await page.getByLabel('New key secret').waitFor();
  await shoot(page, 'keys');
  await page.getByRole('button', { name: 'Done' }).click();

  await open('Usage');
  await page.getByLabel('Group by').selectOption('model');
  await page.getByRole('button', { name: 'Show report' }).click();
  await page.getByRole('rowheader', { name: 'demo-large' }).waitFor();
  await shoot(page, 'usage');

  await open('Logs');
  await page.getByRole('cell', { name: 'demo-large' }).first().waitFor();
  await shoot(page, 'logs');

  await open('Routing');
  await page.getByText('@preset/cheap-first').waitFor();
  await shoot(page, 'routing');

  await open('Webhooks');
  await page.getByRole('row', { name: /order pipeline/ }).waitFor();
  await shoot(page, 'webhooks');

  await open('Security');
  await page.getByRole('heading', { name: 'Sessions' }).waitFor();
  await shoot(page, 'security');
  await desktop.close();

  const phone = await browser.newContext({ viewport: PHONE, colorScheme: 'dark' });
  const small = await phone.newPage();
  await signIn(small, consoleUrl);
  await small.getByRole('link', { name: 'Usage', exact: true }).click();
  await small.getByRole('rowheader').first().waitFor();
  await shoot(small, 'usage-phone-dark');
  await phone.close();
}

async function main(): Promise<void> {
  const run = await BenchRun.start('gw-console-screenshots', log);
  let ok = false;
  try {
    let consoleUrl = process.env.CONSOLE_URL?.replace(/\/+$/, '');
    let gatewayUrl: string;
    if (consoleUrl) {
      gatewayUrl = ((await (await fetch(`${consoleUrl}/config.json`)).json()) as { gateway_url: string }).gateway_url;
    } else {
      const demo = await startDemo(run, root, {
        postgresAdminUrl: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
        redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
      });
      run.onEnd(() => demo.close());
      ({ consoleUrl, gatewayUrl } = demo);
    }
    log(`console ${consoleUrl}, gateway ${gatewayUrl}`);
    await seed(consoleUrl, gatewayUrl);
    await mkdir(OUT, { recursive: true });
    const browser = await launchChromium();
    run.onEnd(() => browser.close());
    await screenshots(browser, consoleUrl);
    ok = true;
  } finally {
    await run.end(ok);
  }
}

await main();
