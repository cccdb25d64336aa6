import { expect } from 'vitest';
import type { TestGateway } from '../support/gateway.js';

// Assertions read arbitrary JSON shapes; the expectations themselves are the type check.
export type Json = any;

export interface CallOptions {
  token?: string;
  cookie?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, for malformed bodies. */
  raw?: string;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  json: Json;
}

/** One console call: `path` is under /api/v1. */
export async function api(gw: TestGateway, method: string, path: string, o: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.cookie) {
    headers.cookie = o.cookie;
    // What a browser on the gateway's own origin sends; the CSRF tests send their own.
    headers.origin ??= gw.url;
  }
  const body = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${gw.url}/api/v1${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

export interface SignedIn {
  token: string;
  /** The `Cookie` request header carrying the session. */
  cookie: string;
  setCookie: string;
  reply: Reply;
}

export async function signIn(
  gw: TestGateway,
  email: string,
  password = 'password123',
  headers: Record<string, string> = {},
): Promise<SignedIn> {
  const reply = await api(gw, 'POST', '/auth/login', { body: { identifier: email, password }, headers });
  expect(reply.status, JSON.stringify(reply.json)).toBe(200);
  const setCookie = reply.headers.get('set-cookie') ?? '';
  // `__Host-gw_session` where the deployment is HTTPS (CONSOLE_ORIGIN, PUBLIC_BASE_URL or the request).
  const [, name = 'gw_session', value = ''] = /((?:__Host-)?gw_session)=([^;]*)/.exec(setCookie) ?? [];
  return { token: reply.json.data.token, cookie: `${name}=${value}`, setCookie, reply };
}

/** A fresh user (password `password123`, one key) and a signed-in session of theirs. */
export async function userSession(gw: TestGateway) {
  const account = await gw.account();
  return { ...account, ...(await signIn(gw, account.email)) };
}

/** The console's failure envelope, exactly. */
export function expectFailure(reply: Reply, status: number, errorCode: string, message?: RegExp): void {
  expect(reply.status, JSON.stringify(reply.json)).toBe(status);
  // The console's envelope; `param` names the field at fault where there is one.
  const { param, ...envelope } = reply.json as Record<string, unknown>;
  expect(envelope).toEqual({
    code: status,
    error_code: errorCode,
    message: expect.any(String),
    request_id: reply.headers.get('x-request-id'),
  });
  if (param !== undefined) expect(typeof param).toBe('string');
  if (message) expect(reply.json.message).toMatch(message);
}

/** GET /v1/models with an API key: the data plane's view of the key. */
export async function modelsWith(gw: TestGateway, key: string): Promise<Reply> {
  const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, headers: res.headers, json: await res.json() };
}
