import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const DEBIAN_CHROMIUM = '/usr/bin/chromium';
// Without these a headless Chromium keeps dialling Google's hosts, refused by a closed network.
const QUIET = [
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/**
 * A headless Chromium for the browser tests, with nothing downloaded at run time: Debian's
 * `chromium` when it is installed, else the build shipped inside the `@sparticuz/chromium` npm
 * package (a devDependency, unpacked to the temp folder on first use), so `npm ci && npm test`
 * needs no browser installed by hand.
 */
export async function launchChromium(): Promise<Browser> {
  if (existsSync(DEBIAN_CHROMIUM)) {
    return chromium.launch({
      executablePath: DEBIAN_CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', ...QUIET],
    });
  }
  const packaged = (await import('@sparticuz/chromium')).default;
  return chromium.launch({
    executablePath: await packaged.executablePath(),
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-zygote', '--single-process', ...QUIET],
  });
}
