import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** The names distributions install Chromium under (Debian: `chromium`; Ubuntu, Alpine and others: `chromium-browser`). */
const CHROMIUM_NAMES = ['chromium', 'chromium-browser'];
// Without these a headless Chromium keeps dialling Google's hosts, refused by a closed network.
const QUIET = [
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/** The first of `names` that is an executable file in a folder of `searchPath` (PATH's form), names in order. */
export function findOnPath(names: readonly string[], searchPath = process.env.PATH ?? ''): string | undefined {
  const dirs = searchPath.split(path.delimiter).filter(Boolean);
  for (const name of names) {
    for (const dir of dirs) {
      const file = path.join(dir, name);
      try {
        accessSync(file, constants.X_OK);
        if (statSync(file).isFile()) return file;
      } catch {
        // not here, or not executable
      }
    }
  }
  return undefined;
}

/** The system's Chromium, looked up on PATH as a shell would (`chromium`, else `chromium-browser`). */
export const systemChromium = (searchPath?: string) => findOnPath(CHROMIUM_NAMES, searchPath);

/**
 * A headless Chromium for the browser tests, with nothing downloaded at run time: the system's
 * `chromium` (or `chromium-browser`) when one is on PATH, else the build shipped inside the
 * `@sparticuz/chromium` npm package (a devDependency, unpacked to the temp folder on first use), so
 * `npm ci && npm test` needs no browser installed by hand.
 */
export async function launchChromium(): Promise<Browser> {
  // The page's locale comes from LANG: under C.UTF-8 (a container's usual) Chromium reports
  // `en-US@posix`, which Intl refuses, and the tests read en-US formatting anyway.
  const env = { ...process.env, LANG: 'en_US.UTF-8' };
  const installed = systemChromium();
  if (installed) {
    return chromium.launch({
      executablePath: installed,
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
