import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemChromium } from './browser.js';

// The browser tests' Chromium is looked up on PATH, as a shell would, not at one fixed path.
let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'gw-chromium-path-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function folder(name: string, files: Record<string, 'executable' | 'plain' | 'folder'>): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(dir);
  for (const [file, kind] of Object.entries(files)) {
    if (kind === 'folder') await mkdir(path.join(dir, file));
    else await writeFile(path.join(dir, file), '#!/bin/sh\n', { mode: kind === 'executable' ? 0o755 : 0o644 });
  }
  return dir;
}

describe('the system Chromium, found on PATH', () => {
  it('finds `chromium` in whichever folder of PATH holds it, the first one first', async () => {
    const empty = await folder('empty', {});
    const first = await folder('first', { chromium: 'executable' });
    const second = await folder('second', { chromium: 'executable' });
    expect(systemChromium([empty, first, second].join(path.delimiter))).toBe(path.join(first, 'chromium'));
  });

  it('finds `chromium-browser` when there is no `chromium`, and prefers `chromium` anywhere on PATH', async () => {
    const ubuntu = await folder('ubuntu', { 'chromium-browser': 'executable' });
    const debian = await folder('debian', { chromium: 'executable' });
    expect(systemChromium(ubuntu)).toBe(path.join(ubuntu, 'chromium-browser'));
    expect(systemChromium([ubuntu, debian].join(path.delimiter))).toBe(path.join(debian, 'chromium'));
  });

  it('follows a symlink (how /usr/bin/chromium-browser often is), and skips what is not an executable file', async () => {
    const real = await folder('real', { 'chrome-wrapper': 'executable' });
    const linked = await folder('linked', {});
    await symlink(path.join(real, 'chrome-wrapper'), path.join(linked, 'chromium-browser'));
    const plain = await folder('plain', { chromium: 'plain' });
    const dirs = await folder('dirs', { chromium: 'folder' });
    await chmod(path.join(plain, 'chromium'), 0o644);
    expect(systemChromium([plain, dirs, linked].join(path.delimiter))).toBe(path.join(linked, 'chromium-browser'));
  });

  it('none on PATH: undefined (the packaged build is used)', async () => {
    const plain = await folder('nothing', { chromium: 'plain' });
    expect(systemChromium(plain)).toBeUndefined();
    expect(systemChromium('')).toBeUndefined();
  });
});
