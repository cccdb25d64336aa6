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
  // The page's locale comes from LANG: under C.UTF-8 (a container's usual) Chromium reports
  // `en-US@posix`, which Intl refuses, and the tests read en-US formatting anyway.
  const env = { ...process.env, LANG: 'en_US.UTF-8' };
  if (existsSync(DEBIAN_CHROMIUM)) {
    return chromium.launch({
      executablePath: DEBIAN_CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', ...QUIET],
      env,
    });
  }
  const packaged = (await import('@sparticuz/chromium')).default;
  // Not `--single-process` (the package's advice for AWS Lambda): in that mode the browser dies
  // when a test closes its page, and every later page of the file fails.
  return chromium.launch({
    executablePath: await packaged.executablePath(),
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', ...QUIET],
    env,
  });
}
