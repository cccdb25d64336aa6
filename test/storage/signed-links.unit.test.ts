import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrCreateLinkSecret } from '../../shared/storage/link-secret.js';
import { linkUrl, signLink, verifyLink, type LinkClaims } from '../../shared/storage/signed-links.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const NOW = Date.UTC(2030, 0, 1);
const claims: LinkClaims = {
  objectKey: 'videos/task_123.mp4',
  userId: 'usr_1',
  expiresAt: NOW + 3_600_000,
  filename: 'Ünïcode clip.mp4',
  contentType: 'video/mp4',
};

describe('signed links', () => {
  it('round-trips the claims of a valid link, URL-safe', () => {
    const token = signLink(claims, SECRET);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(verifyLink(token, SECRET, NOW)).toEqual(claims);
    const minimal = { objectKey: 'a', userId: 'u', expiresAt: NOW + 1 };
    expect(verifyLink(signLink(minimal, SECRET), SECRET, NOW)).toEqual(minimal);
  });

  it('stops working at expiresAt', () => {
    const token = signLink(claims, SECRET);
    expect(verifyLink(token, SECRET, claims.expiresAt - 1)).toBeDefined();
    expect(verifyLink(token, SECRET, claims.expiresAt)).toBeUndefined();
  });

  it('refuses any tampering with the payload or the signature', () => {
    const token = signLink(claims, SECRET);
    const [payload, mac] = token.split('.') as [string, string];
    const forged = Buffer.from(
      JSON.stringify({ k: 'videos/someone-else.mp4', u: 'usr_2', e: claims.expiresAt }),
    ).toString('base64url');
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const bad of [
      `${forged}.${mac}`,
      `${flip(payload, 3)}.${mac}`,
      `${payload}.${flip(mac, 5)}`,
      `${payload}.${mac.slice(0, -2)}`,
      `${payload}.`,
      `${payload}.${mac}.extra`,
      payload,
      '',
      '.',
    ]) {
      expect(verifyLink(bad, SECRET, NOW), bad).toBeUndefined();
    }
  });

  it('refuses a link signed with another secret, and short secrets', () => {
    const token = signLink(claims, SECRET);
    expect(verifyLink(token, `${SECRET}-rotated`, NOW)).toBeUndefined();
    expect(() => signLink(claims, 'short')).toThrow(RangeError);
  });

  it('builds the gateway URL', () => {
    expect(linkUrl('https://gw.example.com/', 'abc.def')).toBe('https://gw.example.com/v1/files/abc.def');
  });

  it('keeps one generated secret per data directory', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gw-secret-'));
    try {
      const all = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateLinkSecret(dir)));
      expect(new Set(all).size).toBe(1);
      expect(all[0]!.length).toBeGreaterThanOrEqual(32);
      expect(await loadOrCreateLinkSecret(dir)).toBe(all[0]);
      expect((await readFile(path.join(dir, 'link-secret'), 'utf8')).trim()).toBe(all[0]);
      expect((await stat(path.join(dir, 'link-secret'))).mode & 0o077).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
