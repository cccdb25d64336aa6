import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatRequest, postChat } from '../support/http.js';
import { drained } from '../support/money.js';
import { seriousViolations, startSiteHarness, signIn, watchProblems, type SiteHarness } from './site.js';

// A dataset export from the Datasets page, run by the real `dataset-export` worker: started,
// watched until it succeeds, and downloaded through its signed link.
let h: SiteHarness;

beforeAll(async () => {
  h = await startSiteHarness({ moreQueues: 'dataset-export' });
});
afterAll(async () => {
  await h?.close();
});

describe('console site: dataset exports', { timeout: 120_000 }, () => {
  it("turns content logging on, shows a record's score in Logs, starts an export, shows it succeed without a reload, and downloads the JSONL", async () => {
    const { email, key, userId } = await h.sec.gw.account({ balance: 1_000_000 });
    const page = await h.browser.newPage();
    const problems = watchProblems(page);
    await signIn(page, h.site, email);
    await page.getByRole('link', { name: 'Datasets', exact: true }).click();
    await page.getByText('No exports yet.').waitFor();
    const logging = page.getByLabel(/Keep every call's prompt and completion/);
    await logging.check();
    // Saved before the call, which is logged only with the setting on.
    const saved = () =>
      h.sec.gw.services.db.selectFrom('users').select('log_content').where('id', '=', userId).executeTakeFirstOrThrow();
    await expect.poll(async () => (await saved()).log_content, { timeout: 10_000 }).toBe(true);

    const prompt = 'a prompt worth keeping for the dataset';
    const call = await postChat(h.sec.gw.url, key, chatRequest('gpt-sim', prompt, { max_tokens: 3 }));
    expect(call.status).toBe(200);
    await drained(h.sec.gw);
    const requestId = call.headers.get('x-request-id')!;
    const scored = await fetch(`${h.sec.gw.url}/v1/scores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ request_id: requestId, name: 'helpfulness', value: 0.75, comment: 'to the point' }),
    });
    expect(scored.status, await scored.clone().text()).toBe(200);

    // The record's details on the Logs page show its score.
    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    await page.getByRole('button', { name: `Details of ${requestId}` }).click();
    const scores = page.getByRole('list', { name: 'Scores' });
    expect(await scores.textContent()).toBe('helpfulness: 0.75 — to the point');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Datasets', exact: true }).click();

    await page.getByRole('button', { name: 'Start export' }).click();
    const row = page
      .getByRole('row')
      .filter({ has: page.getByRole('status') })
      .first();
    // The page polls while the export is queued or running, and shows the end on its own.
    await row.getByText('succeeded', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('1');
    expect(await seriousViolations(page)).toEqual([]);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('link', { name: 'Download JSONL' }).click(),
    ]);
    const lines = (await readFile((await download.path())!, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!) as { model: string; status_code: number; scores: unknown; content?: unknown };
    expect(record).toMatchObject({ model: 'gpt-sim', status_code: 200, request_id: requestId });
    expect(record.scores).toMatchObject([{ name: 'helpfulness', value: 0.75 }]);
    expect(JSON.stringify(record.content)).toContain(prompt);
    expect(problems).toEqual([]);
    await page.close();
  });
});
