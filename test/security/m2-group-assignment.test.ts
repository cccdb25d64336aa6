// M2: a catalog group carries an operator's discount and limits shared by its keys. Any console user
// could put a key in any group (a 50 % discount reproduced, another tenant's shared limits taken).
// Now the console offers only `default`, the groups marked `self_service: true` and the ones the
// operator allowed that user (CLI `user:groups`); anything else is 403 `group_not_allowed`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectFailure, userSession } from '../console/helpers.js';
import { testCatalog } from '../support/catalog.js';
import { cliInProcess } from '../support/cli-in-process.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { writeCatalogFile } from '../support/processes.js';

const catalog = (simUrl: string) =>
  testCatalog(simUrl, {
    groups: [
      { id: 'default', models: ['*'] },
      { id: 'basic', models: ['gpt-sim', 'free-sim'], self_service: true },
      { id: 'vip', models: ['*'], discount_percent: 50 },
      { id: 'tenant-acme', models: ['*'], rpm_limit: 600 },
    ],
  });

let gw: TestGateway;
let cliEnv: Record<string, string>;
let removeCatalog: () => Promise<void>;

beforeAll(async () => {
  gw = await startTestGateway({ catalog });
  const file = await writeCatalogFile(gw.sim.url, catalog);
  removeCatalog = file.remove;
  cliEnv = { ...gw.env, CATALOG_FILE: file.file };
});
afterAll(async () => {
  await gw?.close();
  await removeCatalog?.();
});

/** One operator command → exit code, its JSON and its error line. */
async function cli(
  ...args: string[]
): Promise<{ code: number | null; json: Record<string, unknown> | undefined; stderr: string }> {
  const { code, stdout, stderr } = await cliInProcess(args, cliEnv);
  return { code, json: stdout ? JSON.parse(stdout) : undefined, stderr };
}

const groupIds = async (token: string) =>
  ((await api(gw, 'GET', '/keys/groups', { token })).json.data as { id: string }[]).map((g) => g.id);

describe('M2: catalog groups are the operator’s to assign', () => {
  it('refuses a console key in an operator group (discount or another tenant’s limits), on create and update', async () => {
    const s = await userSession(gw);
    for (const group of ['vip', 'tenant-acme', 'no-such-group']) {
      expectFailure(
        await api(gw, 'POST', '/keys', { token: s.token, body: { name: 'grab', group } }),
        403,
        'group_not_allowed',
        /'group'/,
      );
      expectFailure(
        await api(gw, 'PATCH', `/keys/${s.keyId}`, { token: s.token, body: { group } }),
        403,
        'group_not_allowed',
        /'group'/,
      );
    }
    const keys = await api(gw, 'GET', '/keys', { token: s.token });
    expect(keys.json.list.map((k: { group: string }) => k.group)).toEqual(['default']);

    // What the user may choose still works, and the form can list exactly that.
    expect((await api(gw, 'POST', '/keys', { token: s.token, body: { group: 'basic' } })).status).toBe(201);
    expect((await api(gw, 'PATCH', `/keys/${s.keyId}`, { token: s.token, body: { group: 'default' } })).status).toBe(
      200,
    );
    const listed = await api(gw, 'GET', '/keys/groups', { token: s.token });
    expect(listed.json.data).toEqual([
      { id: 'default', models: '*', discount_percent: 0, rpm_limit: null, tpm_limit: null, concurrency_limit: null },
      {
        id: 'basic',
        models: ['free-sim', 'gpt-sim'],
        discount_percent: 0,
        rpm_limit: null,
        tpm_limit: null,
        concurrency_limit: null,
      },
    ]);
  });

  it('the operator allows groups per user (user:groups); another user stays refused; a key keeps its assigned group on edit', async () => {
    const s = await userSession(gw);
    const other = await userSession(gw);
    const allowed = await cli('user:groups', '--email', s.email, '--allow', 'vip');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.json).toEqual({
      email: s.email,
      allowed_groups: ['vip'],
      selectable_groups: ['default', 'basic', 'vip'],
    });
    expect(await groupIds(s.token)).toEqual(['default', 'basic', 'vip']);
    const vipKey = await api(gw, 'POST', '/keys', { token: s.token, body: { group: 'vip' } });
    expect(vipKey.status, JSON.stringify(vipKey.json)).toBe(201);
    expectFailure(
      await api(gw, 'POST', '/keys', { token: other.token, body: { group: 'vip' } }),
      403,
      'group_not_allowed',
    );
    expect(await groupIds(other.token)).toEqual(['default', 'basic']);

    const unknown = await cli('user:groups', '--email', s.email, '--allow', 'vip,nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown group 'nope' \(allow\)/);
    expect((await cli('user:groups', '--email', s.email)).json).toMatchObject({ allowed_groups: ['vip'] });

    // Withdrawn: the key keeps the group it was given, an edit that sends it back changes nothing,
    // but it cannot move to (or back into) an operator group.
    expect((await cli('user:groups', '--email', s.email, '--allow', 'none')).json).toMatchObject({
      allowed_groups: [],
    });
    const id = vipKey.json.data.id as string;
    const edited = await api(gw, 'PATCH', `/keys/${id}`, { token: s.token, body: { name: 'renamed', group: 'vip' } });
    expect(edited.status, JSON.stringify(edited.json)).toBe(200);
    expect(edited.json.data).toMatchObject({ name: 'renamed', group: 'vip' });
    expectFailure(
      await api(gw, 'PATCH', `/keys/${id}`, { token: s.token, body: { group: 'tenant-acme' } }),
      403,
      'group_not_allowed',
    );
    expect(
      (await api(gw, 'PATCH', `/keys/${id}`, { token: s.token, body: { group: 'default' } })).json.data.group,
    ).toBe('default');
    expectFailure(
      await api(gw, 'PATCH', `/keys/${id}`, { token: s.token, body: { group: 'vip' } }),
      403,
      'group_not_allowed',
    );
  });

  it('the operator still assigns any group with key:create --group', async () => {
    const s = await userSession(gw);
    const created = await cli('key:create', '--email', s.email, '--group', 'tenant-acme');
    expect(created.code, created.stderr).toBe(0);
    expect(created.json).toMatchObject({ group: 'tenant-acme', key: expect.stringMatching(/^sk-/) });
  });
});
