import type { Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleCsp } from '../../api/console-site/csp.js';
import { createObjectStore } from '../../shared/storage/index.js';
import { directUploadOrigin } from '../../shared/storage/upload-origin.js';
import { pngOfSize } from '../support/images.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { startSiteHarness, signIn, watchProblems, type SiteHarness } from './site.js';

// With S3 storage the browser PUTs an asset straight to the bucket's presigned URL: the site's
// CSP must allow that origin in connect-src, and only that one.
let s3: TestS3;
let h: SiteHarness;

beforeAll(async () => {
  s3 = await startS3('console-uploads', { browserCors: true });
  h = await startSiteHarness({ env: () => s3.env, uploadOrigin: s3.endpoint });
});
afterAll(async () => {
  await h?.close();
  await s3?.close();
});

describe('console site with S3 storage', { timeout: 120_000 }, () => {
  it('reads the upload origin from a URL the store signs: the S3 endpoint, none for local files', async () => {
    expect(await directUploadOrigin(h.sec.gw.services.storage)).toBe(new URL(s3.endpoint).origin);
    const local = createObjectStore({ driver: 'local', directory: '/tmp/unused-gw-objects' });
    expect(await directUploadOrigin(local)).toBeUndefined();
    expect(consoleCsp()).toContain("connect-src 'self';");
  });

  it("uploads an image from the Assets page straight to the bucket, allowed by the site's CSP", async () => {
    const csp = (await fetch(h.site.url)).headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`connect-src 'self' ${s3.endpoint};`);
    const { email } = await h.sec.gw.account();
    const page = await h.browser.newPage();
    const problems = watchProblems(page);
    const puts: Request[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PUT') puts.push(r);
    });
    await signIn(page, h.site, email);
    await page.getByRole('link', { name: 'Assets', exact: true }).click();
    await page.getByText('No assets yet.').waitFor();
    await page.getByLabel('Upload images').setInputFiles({
      name: 'pixel.png',
      mimeType: 'image/png',
      buffer: pngOfSize(2048),
    });
    await page.getByRole('img', { name: 'pixel.png' }).waitFor();
    expect(puts.map((r) => new URL(r.url()).origin)).toEqual([s3.endpoint]);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });
});
