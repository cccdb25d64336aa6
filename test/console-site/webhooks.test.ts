import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTaskWorkers, type TaskWorkers } from '../../workers/task-workers.js';
import { startReceiver, type Receiver } from '../webhooks/support.js';
import { startSiteHarness, seriousViolations, signIn, watchProblems, type SiteHarness } from './site.js';

// The webhooks page in Chromium against the real gateway, its webhook worker and a receiver on
// loopback (allowed by WEBHOOK_ALLOW_INSECURE_URLS, as in test/webhooks/): an endpoint created
// with its secret shown once, a test event delivered and listed, edited, rotated and deleted.
let h: SiteHarness;
let receiver: Receiver;
let workers: TaskWorkers;

beforeAll(async () => {
  receiver = await startReceiver();
  h = await startSiteHarness({ env: () => ({ WEBHOOK_ALLOW_INSECURE_URLS: 'true', WEBHOOK_RETRY_BASE_MS: '50' }) });
  workers = startTaskWorkers(h.sec.gw.services, {
    queues: 'webhook',
    concurrency: '',
    maintenanceEveryMs: 60_000,
    staleAfterMs: 60_000,
    graceMs: 1_000,
  });
});
afterAll(async () => {
  await workers?.close();
  await h?.close();
  await receiver?.close();
});

describe('console site: webhooks', { timeout: 120_000 }, () => {
  it('creates an endpoint, sends a test event, lists the delivery, edits, rotates and deletes it', async () => {
    const { email } = await h.sec.gw.account();
    const page = await h.browser.newPage();
    const problems = watchProblems(page);
    await signIn(page, h.site, email);
    // The navigation leads to the gateway's API reference too.
    expect(await page.getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe(`${h.sec.gw.url}/docs`);
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByText('No webhook endpoints yet.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // The form's own check puts the error next to the events, before any call.
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByLabel('Endpoint URL').fill(`${receiver.origin}/hooks`);
    await form.getByLabel('Description').fill('local receiver');
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await form.getByRole('group', { name: 'Events' }).getByRole('alert').waitFor();
    await form.getByLabel('video.completed').check();
    await form.getByLabel('webhook.test').check();
    expect(await seriousViolations(page)).toEqual([]);
    await form.getByRole('button', { name: 'Create webhook' }).click();
    const secret = (await page.getByLabel('New webhook secret').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByLabel('New webhook secret').count()).toBe(0);
    const row = page.getByRole('row', { name: /local receiver/ });
    expect(await row.textContent()).toContain('video.completed, webhook.test');

    await page.getByRole('button', { name: 'Send test event to local receiver' }).click();
    const [arrived] = await receiver.waitFor(1);
    expect(JSON.parse(arrived!.body)).toMatchObject({ type: 'webhook.test' });
    expect(arrived!.headers['webhook-signature']).toMatch(/^v1,/);
    const deliveries = page.getByRole('region', { name: /Deliveries to/ });
    await deliveries
      .getByRole('row', { name: /webhook\.test/ })
      .getByText('delivered')
      .waitFor();
    expect(await deliveries.getByRole('row', { name: /webhook\.test/ }).textContent()).toMatch(/HTTP 204.*\d+ ms/);
    expect(await seriousViolations(page)).toEqual([]);

    // Redeliver sends the same event again, with the same webhook-id.
    await deliveries.getByRole('button', { name: /^Redeliver webhook\.test/ }).click();
    const [, again] = await receiver.waitFor(2);
    expect(again!.headers['webhook-id']).toBe(arrived!.headers['webhook-id']);

    await page.getByRole('button', { name: 'Edit local receiver' }).click();
    const edit = page.getByRole('form', { name: 'Edit webhook' });
    await edit.getByLabel('video.completed').uncheck();
    await edit.getByLabel('Enabled: deliver events to this endpoint').uncheck();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page
      .getByRole('row', { name: /local receiver/ })
      .getByText('disabled (owner)')
      .waitFor();
    expect(await page.getByRole('row', { name: /local receiver/ }).textContent()).not.toContain('video.completed');

    await page.getByRole('button', { name: 'Rotate secret of local receiver' }).click();
    await page
      .getByRole('dialog', { name: 'Rotate the signing secret?' })
      .getByRole('button', { name: 'Rotate secret' })
      .click();
    const rotated = (await page.getByLabel('New webhook secret').textContent())?.trim() ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('button', { name: 'Delete local receiver' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this webhook endpoint?' });
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No webhook endpoints yet.').waitFor();
    expect(page.url()).not.toContain('whsec_');
    expect(await page.evaluate('JSON.stringify(localStorage) + JSON.stringify(sessionStorage)')).toBe('{}{}');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows the API refusing the URL next to the URL field', async () => {
    const { email } = await h.sec.gw.account();
    const page = await h.browser.newPage();
    await signIn(page, h.site, email);
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByLabel('Endpoint URL').fill('ftp://hooks.example.com/x');
    await form.getByLabel('batch.completed').check();
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await form.locator('input[type=url][aria-invalid=true]').waitFor();
    expect(
      await form
        .locator('.field', { has: page.getByLabel('Endpoint URL') })
        .getByRole('alert')
        .count(),
    ).toBe(1);
    await page.close();
  });
});
