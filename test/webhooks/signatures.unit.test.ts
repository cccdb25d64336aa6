// The pure parts of webhooks: Standard Webhooks signatures (ours, checked by the standardwebhooks
// package and by the TypeScript client), the event body, the retry schedule and response excerpts.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../clients/typescript/src/index.js';
import { eventPayload, taskEvent } from '../../shared/webhooks/events.js';
import {
  MAX_RETRY_DELAY_MS,
  nextAttemptAt,
  RETRY_WINDOW_MS,
  retryDelayMs,
} from '../../shared/webhooks/retry-schedule.js';
import { excerptOf, EXCERPT_BYTES } from '../../shared/webhooks/send-attempt.js';
import { newWebhookSecret, signatureHeader, signPayload } from '../../shared/webhooks/signature.js';

// The reference example of Standard Webhooks.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const MSG_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TIMESTAMP = 1614265330;
const BODY = '{"test": 2432232314}';
const SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

const headersOf = (signature: string, timestamp = TIMESTAMP) => ({
  'webhook-id': MSG_ID,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signature,
});

describe('signatures', () => {
  it('match the Standard Webhooks reference example', () => {
    expect(signPayload(SECRET, MSG_ID, TIMESTAMP, BODY)).toBe(SIGNATURE);
  });

  it('are made with fresh whsec_ secrets of 24 random bytes', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(24);
    expect(newWebhookSecret()).not.toBe(a);
  });

  it('carry one signature per live secret, each verified by standardwebhooks', () => {
    const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
    const now = Math.floor(Date.now() / 1000);
    const header = signatureHeader([newSecret, oldSecret], MSG_ID, now, BODY);
    expect(header.split(' ')).toHaveLength(2);
    for (const secret of [oldSecret, newSecret])
      expect(new Webhook(secret).verify(BODY, headersOf(header, now))).toEqual({ test: 2432232314 });
    expect(() => new Webhook(newWebhookSecret()).verify(BODY, headersOf(header, now))).toThrow();
  });
});

describe('verifyWebhook (TypeScript client)', () => {
  it('accepts the reference example, with headers in any case and as a fetch Headers', () => {
    expect(verifyWebhook(BODY, headersOf(SIGNATURE), SECRET, { now: TIMESTAMP })).toEqual({ test: 2432232314 });
    const upper = Object.fromEntries(Object.entries(headersOf(SIGNATURE)).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(Buffer.from(BODY), upper, SECRET, { now: TIMESTAMP + 300 })).toEqual({ test: 2432232314 });
    expect(verifyWebhook(BODY, new Headers(headersOf(SIGNATURE)), SECRET, { now: TIMESTAMP - 300 })).toEqual({
      test: 2432232314,
    });
  });

  it('accepts any of several signatures (a rotation)', () => {
    const both = `v1,${Buffer.from('not this one').toString('base64')} ${SIGNATURE}`;
    expect(verifyWebhook(BODY, headersOf(both), SECRET, { now: TIMESTAMP })).toEqual({ test: 2432232314 });
  });

  it('refuses a wrong secret, a changed body or id, another version, stale or future timestamps, missing headers', () => {
    const cases: Array<[string, () => unknown]> = [
      ['secret', () => verifyWebhook(BODY, headersOf(SIGNATURE), newWebhookSecret(), { now: TIMESTAMP })],
      ['body', () => verifyWebhook('{"test": 2432232315}', headersOf(SIGNATURE), SECRET, { now: TIMESTAMP })],
      ['id', () => verifyWebhook(BODY, { ...headersOf(SIGNATURE), 'webhook-id': 'msg_x' }, SECRET, { now: TIMESTAMP })],
      ['version', () => verifyWebhook(BODY, headersOf(`v2,${SIGNATURE.slice(3)}`), SECRET, { now: TIMESTAMP })],
      ['old', () => verifyWebhook(BODY, headersOf(SIGNATURE), SECRET, { now: TIMESTAMP + 301 })],
      ['future', () => verifyWebhook(BODY, headersOf(SIGNATURE), SECRET, { now: TIMESTAMP - 301 })],
      ['missing', () => verifyWebhook(BODY, { 'webhook-id': MSG_ID }, SECRET, { now: TIMESTAMP })],
    ];
    for (const [name, run] of cases) {
      expect(run, name).toThrow(WebhookVerificationError);
      try {
        run();
      } catch (err) {
        expect((err as WebhookVerificationError).code, name).toBe('webhook_verification_failed');
      }
    }
  });
});

describe('events', () => {
  it('name a task end by kind and outcome; an expired task is a failed one', () => {
    expect(taskEvent('video', 't1', 'succeeded')).toEqual({
      type: 'video.completed',
      subject: { id: 't1', object: 'video' },
    });
    expect(taskEvent('video', 't1', 'expired')?.type).toBe('video.failed');
    expect(taskEvent('image', 't2', 'cancelled')).toEqual({
      type: 'image_task.cancelled',
      subject: { id: 't2', object: 'image.task' },
    });
    expect(taskEvent('image', 't2', 'failed')?.type).toBe('image_task.failed');
    expect(taskEvent('video', 't1', 'running')).toBeUndefined();
  });

  it('have the contract body, created_at in Unix seconds', () => {
    const body = JSON.parse(
      eventPayload('evt_a', 'video.completed', new Date(1_700_000_000_999), { id: 't1', object: 'video' }),
    );
    expect(body).toEqual({
      id: 'evt_a',
      object: 'event',
      type: 'video.completed',
      created_at: 1_700_000_000,
      data: { id: 't1', object: 'video' },
    });
  });
});

describe('the retry schedule', () => {
  it('doubles from the base, ±10 %, up to 12 h', () => {
    expect(retryDelayMs(1, 30_000, () => 0.5)).toBe(30_000);
    expect(retryDelayMs(2, 30_000, () => 0.5)).toBe(60_000);
    expect(retryDelayMs(5, 30_000, () => 0.5)).toBe(480_000);
    expect(retryDelayMs(30, 30_000, () => 0.5)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs(1, 30_000, () => 0)).toBe(27_000);
    expect(retryDelayMs(1, 30_000, () => 0.999_999)).toBeLessThanOrEqual(33_000);
  });

  it('keeps trying for 3 days with the default base, a last attempt at the end, then gives up', () => {
    const start = 0;
    const retryUntil = start + RETRY_WINDOW_MS;
    let now = start;
    let attempts = 1;
    for (;;) {
      const next = nextAttemptAt(attempts, now, retryUntil, 30_000);
      if (next === undefined) break;
      expect(next).toBeGreaterThan(now);
      now = next;
      attempts++;
    }
    expect(now).toBe(retryUntil);
    expect(attempts).toBeGreaterThanOrEqual(15);
    expect(attempts).toBeLessThanOrEqual(20);
  });
});

describe('response excerpts', () => {
  it('are at most 1 KiB of text, never a broken character or a NUL', () => {
    const long = Buffer.from('é'.repeat(2_000));
    expect(Buffer.byteLength(excerptOf(long))).toBeLessThanOrEqual(EXCERPT_BYTES);
    expect(excerptOf(long)).toMatch(/^é+$/);
    const binary = Buffer.from(Array.from({ length: 4_096 }, (_, i) => (i * 37) % 256));
    expect(Buffer.byteLength(excerptOf(binary))).toBeLessThanOrEqual(EXCERPT_BYTES);
    expect(excerptOf(binary)).not.toContain('\u0000');
    expect(excerptOf(Buffer.from('ok'))).toBe('ok');
  });
});
