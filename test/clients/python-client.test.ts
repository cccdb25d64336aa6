import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';
import { startTaskGateway, VIDEO_MODEL, type TaskGateway } from '../support/task-gateway.js';

const run = promisify(execFile);
const PYTHON_DIR = path.join(ROOT, 'clients', 'python');

let gw: TaskGateway;
let key: string;
let privateKey: string;
let scratch: string;

beforeAll(async () => {
  gw = await startTaskGateway();
  ({ key } = await gw.account({ balance: 50_000_000, key: { usage_access: true } }));
  ({ key: privateKey } = await gw.account({ balance: 5_000_000, key: { kind: 'private' } }));
  scratch = await mkdtemp(path.join(tmpdir(), 'gw-pyclient-'));
});

afterAll(async () => {
  await gw?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const gatewayEnv = () => ({
  ...process.env,
  GATEWAY_BASE_URL: gw.url,
  GATEWAY_API_KEY: key,
  GATEWAY_PRIVATE_KEY: privateKey,
  GATEWAY_CHAT_MODEL: 'gpt-sim',
  GATEWAY_VIDEO_MODEL: VIDEO_MODEL,
  PYTHONDONTWRITEBYTECODE: '1',
});

describe('the Python client (unittest, standard library only)', () => {
  it('passes its whole unittest suite against the running gateway, with nothing skipped', async () => {
    const result = await run('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', '-v'], {
      cwd: PYTHON_DIR,
      env: gatewayEnv(),
      timeout: 120_000,
    }).catch((err: { stdout: string; stderr: string }) => err);
    const output = `${result.stdout}\n${result.stderr}`;
    expect(output, output).toMatch(/\nOK\s*$/);
    expect(output).not.toMatch(/skipped/i);
    expect(Number(/Ran (\d+) tests?/.exec(output)?.[1])).toBeGreaterThanOrEqual(15);
  }, 150_000);

  it('builds the 0.1.7 wheel and source archive, installs each offline and runs the README quick start', async () => {
    const out = path.join(scratch, 'dist');
    await run('python3', [path.join(PYTHON_DIR, 'build.py'), out]);
    const readme = await readFile(path.join(PYTHON_DIR, 'README.md'), 'utf8');
    const quickStart = /## Quick start\s+```python\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(quickStart).toBeTruthy();
    const script = quickStart!
      .replace('"sk-…"', JSON.stringify(key))
      .replace('"http://127.0.0.1:8080"', JSON.stringify(gw.url))
      .replaceAll('"demo-large"', '"gpt-sim"')
      .replace('"demo-video"', JSON.stringify(VIDEO_MODEL))
      .replace('duration=5)', 'duration=5, resolution="720p")')
      // The test gateway's tasks end in a fraction of a second: no need to poll every 5 s.
      .replace('timeout=600)', 'timeout=600, interval=0.2)');
    for (const archive of ['gateway_client-0.1.7-py3-none-any.whl', 'gateway_client-0.1.7.tar.gz']) {
      const target = path.join(scratch, archive.replace(/\W/g, '_'));
      await run(
        'python3',
        ['-m', 'pip', 'install', '--quiet', '--no-index', '--no-deps', '--target', target, path.join(out, archive)],
        { timeout: 120_000 },
      );
      // Run from the scratch folder so only the installed copy can be imported.
      const { stdout } = await run('python3', ['-c', script], {
        cwd: scratch,
        env: { ...gatewayEnv(), PYTHONPATH: target },
        timeout: 60_000,
      });
      expect(stdout).toContain('succeeded');
    }
  }, 180_000);
});
