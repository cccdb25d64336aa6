// A real Redis Sentinel setup for failover tests: a master, one replica (replicating through a
// TCP relay the test can hold, to make asynchronous replication fall behind on purpose) and three
// Sentinels, all `redis-server` processes of the Debian binary on free ports, torn down by `stop`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { waitUntil } from './http.js';
import { startRedisServer, type RedisServer } from './limits.js';
import { freePort } from './processes.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

export const MASTER_NAME = 'gwtest';

export interface SentinelSet {
  master: RedisServer;
  replica: RedisServer;
  /** The replica's link to the master: `hold()` stops what the master sends reaching the replica. */
  replication: TcpProxy;
  /** `host:port,...` for REDIS_SENTINELS. */
  sentinels: string;
  /** `host:port` of a Sentinel that answers but monitors no master (a misconfigured one). */
  stranger: string;
  /** The address the Sentinels name as master now. */
  masterPort(): Promise<number | undefined>;
  stop(): Promise<void>;
}

export async function startSentinelSet(): Promise<SentinelSet> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gw-sentinel-'));
  // No 5 s wait before the first full sync (the default), nor files in the checkout.
  const master = await startRedisServer(await freePort(), undefined, ['--repl-diskless-sync-delay', '0', '--dir', dir]);
  const replication = await startTcpProxy('127.0.0.1', master.port);
  const replica = await startRedisServer(await freePort(), undefined, [
    '--replicaof',
    '127.0.0.1',
    String(replication.port),
    '--dir',
    dir,
  ]);
  const sentinels: { port: number; child: ChildProcess; client: Redis }[] = [];
  let strangerAddress = '';
  let stopStranger = () => {};
  const stop = async () => {
    stopStranger();
    for (const s of sentinels) {
      s.client.disconnect();
      s.child.kill('SIGKILL');
    }
    await Promise.all([master.kill(), replica.kill()]);
    await replication.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const linked = new Redis(master.port, '127.0.0.1');
    await waitUntil(async () => /slave0:.*state=online/.test(await linked.info('replication')), 20_000, 50);
    linked.disconnect();
    for (let i = 0; i < 4; i++) {
      const port = await freePort();
      const file = path.join(dir, `sentinel-${i}.conf`);
      // Quick to judge a master down and to fail over, as a test needs; production keeps the
      // defaults. The fourth monitors nothing.
      const monitor = [
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master.port} 2`,
        `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
        `sentinel failover-timeout ${MASTER_NAME} 4000`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
      ];
      await writeFile(file, [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, ...(i < 3 ? monitor : []), ''].join('\n'));
      const child = spawn('redis-server', [file, '--sentinel'], { stdio: 'ignore' });
      const client = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => 100 });
      client.on('error', () => {});
      sentinels.push({ port, child, client });
    }
    const stranger = sentinels.pop()!;
    strangerAddress = `127.0.0.1:${stranger.port}`;
    stopStranger = () => {
      stranger.client.disconnect();
      stranger.child.kill('SIGKILL');
    };
    // Ready once every Sentinel knows the replica and the two other Sentinels (they find each
    // other through the master's hello channel, every 2 s).
    await waitUntil(
      async () => {
        for (const s of sentinels) {
          const fields = await s.client.call('SENTINEL', 'MASTER', MASTER_NAME).catch(() => []);
          const info = toRecord(fields as string[]);
          if (info['num-slaves'] !== '1' || info['num-other-sentinels'] !== '2') return false;
        }
        return true;
      },
      30_000,
      100,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    master,
    replica,
    replication,
    sentinels: sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
    stranger: strangerAddress,
    async masterPort() {
      const reply = (await sentinels[0]!.client
        .call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)
        .catch(() => null)) as string[] | null;
      return reply ? Number(reply[1]) : undefined;
    },
    stop,
  };
}

function toRecord(fields: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) out[fields[i]!] = fields[i + 1]!;
  return out;
}
