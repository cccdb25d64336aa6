import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { LocalService } from './embedded-postgres.js';
import { answers, freePort } from './free-port.js';
import { ServiceError } from './service-error.js';

export const REDIS_MISSING =
  'redis-server was not found on PATH: install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis), or run `docker compose up -d redis` and set REDIS_URL=redis://127.0.0.1:6379';

async function ping(port: number): Promise<boolean> {
  if (!(await answers('127.0.0.1', port, 500))) return false;
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** SHUTDOWN (which writes the AOF) to a server this process did not start. */
async function shutdownAt(port: number): Promise<void> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  await client
    .connect()
    .then(() => client.shutdown())
    .catch(() => {});
  client.disconnect();
}

/**
 * `redis-server` from PATH (Debian's or Homebrew's package; no registry ships one) on a free
 * loopback port, its data under `<dataDir>/redis` with AOF (`everysec`), owned and stopped by this
 * process. One a previous run left running on the same folder is reused.
 */
export async function startEmbeddedRedis(dataDir: string): Promise<LocalService> {
  const dir = path.resolve(dataDir, 'redis');
  await mkdir(dir, { recursive: true });
  const portFile = path.join(dir, 'port');
  const previous = Number(await readFile(portFile, 'utf8').catch(() => ''));
  if (previous > 0 && (await ping(previous)))
    return { url: `redis://127.0.0.1:${previous}`, owned: false, stop: () => shutdownAt(previous) };

  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--appendonly',
    'yes',
    '--appendfsync',
    'everysec',
    '--save',
    '',
    '--daemonize',
    'no',
    '--logfile',
    path.join(dir, 'redis.log'),
  ];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(new ServiceError(err.code === 'ENOENT' ? REDIS_MISSING : `redis-server could not start: ${err.message}`)),
    );
    child.once('exit', (code) =>
      reject(new ServiceError(`redis-server exited at start (code ${code}); see ${path.join(dir, 'redis.log')}`)),
    );
  });
  const ready = (async () => {
    for (let i = 0; i < 200 && !(await ping(port)); i++) await new Promise((r) => setTimeout(r, 50));
    if (!(await ping(port)))
      throw new ServiceError(
        `redis-server did not answer on 127.0.0.1:${port} within 10 s; see ${path.join(dir, 'redis.log')}`,
      );
  })();
  await Promise.race([ready, failed]);
  failed.catch(() => {}); // exits later are the stop below
  await writeFile(portFile, String(port));
  // A gateway that dies without its shutdown takes its Redis along (nothing else would stop it).
  const kill = () => child.kill('SIGTERM');
  process.once('exit', kill);
  return {
    url: `redis://127.0.0.1:${port}`,
    owned: true,
    stop: () =>
      new Promise<void>((resolve) => {
        process.off('exit', kill);
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM'); // redis-server saves its AOF and exits on SIGTERM
      }),
  };
}
