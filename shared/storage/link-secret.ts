import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The link-signing secret when STORAGE_LINK_SECRET is unset: a random one kept in
 * `<dataDir>/link-secret`, so the API and workers on one machine (and restarts) agree. Processes
 * on several machines must share STORAGE_LINK_SECRET instead.
 */
export async function loadOrCreateLinkSecret(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'link-secret');
  const tmp = `${file}.${randomBytes(6).toString('hex')}`;
  await mkdir(dataDir, { recursive: true });
  await writeFile(tmp, randomBytes(32).toString('base64url'), { mode: 0o600 });
  try {
    // link() publishes the complete file or fails with EEXIST: a racing process never reads half.
    await link(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await rm(tmp, { force: true });
  }
  return (await readFile(file, 'utf8')).trim();
}
