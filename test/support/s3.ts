// A real S3-compatible server (s3rver) for tests, in a child process: its memory and event loop
// stay out of the test's own measurements, and it dies with the test process (stdin closes).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface TestS3 {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Settings for `createObjectStore` / the S3_* variables. */
  env: Record<string, string>;
  close(): Promise<void>;
}

const SERVER = `
const S3rver = require('s3rver');
process.stdin.on('end', () => process.exit(0)).resume();
new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory: process.env.S3RVER_DIR,
  configureBuckets: [{ name: process.env.S3RVER_BUCKET, configs: process.env.S3RVER_CORS ? [process.env.S3RVER_CORS] : [] }],
}).run().then(
  (address) => process.stdout.write(JSON.stringify(address) + '\\n'),
  (err) => { console.error(err); process.exit(1); },
);
`;

// Browsers may PUT (presigned uploads) and GET from any origin, as a console's bucket allows its site.
const BROWSER_CORS = `<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>PUT</AllowedMethod><AllowedMethod>GET</AllowedMethod><AllowedHeader>*</AllowedHeader></CORSRule></CORSConfiguration>`;

/**
 * s3rver on a free loopback port with an empty temp directory and one bucket; `close` removes it
 * all. `browserCors`: the bucket answers browsers' cross-origin PUTs and GETs.
 */
export async function startS3(bucket = 'gateway-test', options: { browserCors?: boolean } = {}): Promise<TestS3> {
  const directory = await mkdtemp(path.join(tmpdir(), 'gw-s3-'));
  const child = spawn(process.execPath, ['-e', SERVER], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      S3RVER_DIR: directory,
      S3RVER_BUCKET: bucket,
      ...(options.browserCors && { S3RVER_CORS: BROWSER_CORS }),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve((JSON.parse(out) as { port: number }).port);
    });
    void exited.then(() => reject(new Error(`s3rver exited before listening: ${stderr}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  // s3rver checks signatures against these fixed credentials.
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  return {
    endpoint,
    bucket,
    ...credentials,
    env: {
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    },
    async close() {
      child.stdin.end();
      const stuck = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(stuck);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
