import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signBearer, verifyBearer } from '../../shared/console/bearer-tokens.js';

const secret = randomBytes(32);
const now = 1_800_000_000_000;
const claims = { sessionId: '3c1d5e7f-9a2b-4c4d-8e6f-7a8b9c0d1e2f', expiresAt: now + 60_000 };

describe('session bearer tokens', () => {
  it('verify while unexpired, under the secret that signed them', () => {
    const token = signBearer(claims, secret);
    expect(token).toMatch(/^gwb_[\w-]+\.[\w-]+$/);
    expect(verifyBearer(token, secret, now)).toEqual(claims);
    expect(verifyBearer(token, secret, claims.expiresAt)).toBeUndefined();
    expect(verifyBearer(token, randomBytes(32), now)).toBeUndefined();
  });

  it('refuse anything altered or malformed', () => {
    const token = signBearer(claims, secret);
    const [payload, mac] = token.slice(4).split('.') as [string, string];
    const other = Buffer.from(JSON.stringify(['00000000-0000-4000-8000-000000000000', now + 60_000])).toString(
      'base64url',
    );
    for (const bad of [
      `gwb_${other}.${mac}`,
      `gwb_${payload}.${mac}.x`,
      `gwb_${payload}`,
      `gws_${payload}.${mac}`,
      `gwb_.${mac}`,
      `gwb_${Buffer.from('not json').toString('base64url')}.${mac}`,
    ])
      expect(verifyBearer(bad, secret, now), bad).toBeUndefined();
  });
});
