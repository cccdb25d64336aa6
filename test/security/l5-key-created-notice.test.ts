// L5 (key notices): a key made inside someone's session, or by the operator, was silent. Every key
// created now mails its owner through the `mail` job: which key (prefix and last four, never the
// secret), its group, when, and from where.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, userSession } from '../console/helpers.js';
import { mailBody, startSecurityGateway, type SecurityGateway } from '../console/security-gateway.js';
import { cliInProcess } from '../support/cli-in-process.js';

let sg: SecurityGateway;
beforeAll(async () => {
  sg = await startSecurityGateway();
});
afterAll(() => sg?.close());

describe('L5: the owner is mailed when a key is created', () => {
  it('a console key: the notice names the key, its group and the address it came from, never the secret', async () => {
    const s = await userSession(sg.gw);
    const inbox = sg.inbox(s.email);
    // A refused create mails nothing: the next mail is the key below.
    expect((await api(sg.gw, 'POST', '/keys', { token: s.token, body: { rpm_limit: -1 } })).status).toBe(400);
    const created = await api(sg.gw, 'POST', '/keys', { token: s.token, body: { name: 'ci runner', group: 'basic' } });
    expect(created.status).toBe(201);
    const { key, prefix, last4, created_at } = created.json.data as {
      key: string;
      prefix: string;
      last4: string;
      created_at: string;
    };

    const mail = await inbox.next();
    expect(mail).toMatch(/^Subject: A new API key was created on your account\r?$/m);
    const body = mailBody(mail);
    expect(body).toContain('name:    ci runner');
    expect(body).toContain(`key:     ${prefix}...${last4}`);
    expect(body).toContain('group:   basic');
    expect(body).toContain(`created: ${created_at}`);
    expect(body).toContain('by:      the console, from IP address 127.0.0.1');
    expect(mail).not.toContain(key);
    expect(mail).not.toContain(key.slice(prefix.length, -last4.length));
  });

  it('a key made by the operator (key:create) is announced too', async () => {
    const s = await userSession(sg.gw);
    const inbox = sg.inbox(s.email);
    const made = await cliInProcess(['key:create', '--email', s.email, '--name', 'ops'], sg.gw.env);
    expect(made.code, made.stderr).toBe(0);
    const { prefix, last4 } = JSON.parse(made.stdout) as { prefix: string; last4: string };
    const body = mailBody(await inbox.next());
    expect(body).toContain(`key:     ${prefix}...${last4}`);
    expect(body).toContain('by:      the operator of this service');
  });
});
