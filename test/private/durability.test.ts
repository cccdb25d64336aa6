import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnApi, type ApiProcess } from '../support/processes.js';
import { usageRecords, waitForUsage } from '../support/money.js';
import { startTaskGateway, workerEnv, writeTaskCatalogFile, type TaskGateway } from '../support/task-gateway.js';

// Two API processes and the workers of this test process, on one Postgres and Redis: a private call
// taken by one API is found by the other, and an API killed while its client waits loses nothing.
let gw: TaskGateway;
let apis: ApiProcess[] = [];
let removeCatalog: () => Promise<void>;

beforeAll(async () => {
  gw = await startTaskGateway();
  const catalog = await writeTaskCatalogFile(gw.sim.url);
  removeCatalog = catalog.remove;
  const env = workerEnv(gw, catalog.file);
  apis = await Promise.all([spawnApi(env), spawnApi(env)]);
});
afterAll(async () => {
  await Promise.all(apis.map((a) => a.stop()));
  await removeCatalog?.();
  await gw?.close();
});

const post = (api: ApiProcess, path: string, body: unknown) =>
  fetch(`${api.url}/server/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('private calls across API processes', () => {
  it('getResult on another API process; an API SIGKILLed mid-wait still has its call completed and charged once', async () => {
    const acct = await gw.account({ balance: 5_000_000, key: { kind: 'private' } });
    const quick = (await (
      await post(apis[0]!, 'call', {
        apiKey: acct.key,
        clientRequestId: 'a-1',
        model: 'gpt-sim',
        input: { messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 },
      })
    ).json()) as { data: { task_id: string; status: string } };
    expect(quick.data.status).toBe('succeeded');
    const elsewhere = await (
      await post(apis[1]!, 'getResult', { apiKey: acct.key, taskId: quick.data.task_id })
    ).json();
    expect(elsewhere).toMatchObject({ code: 0, data: { task_id: quick.data.task_id, status: 'succeeded' } });

    // A slow upstream; the client waits on API 0, which dies while it waits.
    const slow = {
      apiKey: acct.key,
      clientRequestId: 'a-2',
      model: 'gpt-sim',
      wait_ms: 60_000,
      input: { messages: [{ role: 'user', content: 'slow [[sim:latencyMs=1500]]' }], max_tokens: 2 },
    };
    const waiting = post(apis[0]!, 'call', slow).catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 400));
    await apis[0]!.stop('SIGKILL');
    expect(await waiting).toBeInstanceOf(Error); // the connection went with the process
    let view: { status: string; result?: unknown } = { status: 'queued' };
    for (let i = 0; i < 100 && view.status !== 'succeeded'; i++) {
      const answer = (await (
        await post(apis[1]!, 'getResult', { apiKey: acct.key, clientRequestId: 'a-2' })
      ).json()) as { data: typeof view };
      view = answer.data;
      if (view.status !== 'succeeded') await new Promise((r) => setTimeout(r, 100));
    }
    expect(view).toMatchObject({ status: 'succeeded', result: { object: 'chat.completion' } });
    // The client retries on the API that is left: the same call, nothing run or charged again.
    const retried = (await (await post(apis[1]!, 'call', slow)).json()) as { data: { status: string } };
    expect(retried.data.status).toBe('succeeded');
    await waitForUsage(gw, acct.userId, 2);
    expect(await usageRecords(gw.services.db, acct.userId)).toHaveLength(2);
  });
});
