import pg from 'pg';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import type { Logger } from '../log.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;

const INT8_OID = 20;
const CIDR_ARRAY_OID = 651;

// BIGINT money fits a JS number exactly below 2^53; refuse silently wrong values instead of rounding.
pg.types.setTypeParser(INT8_OID, (value: string) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`bigint ${value} exceeds the safe integer range`);
  return n;
});
// cidr[] has no built-in parser; it has the same text form as text[].
pg.types.setTypeParser(CIDR_ARRAY_OID as never, pg.types.getTypeParser(1009 as never));

const pools = new WeakMap<Db, pg.Pool>();

/** A lost connection logged at most every 10 s: an outage drops every client of the pool at once. */
export function logLostConnections(log: Logger): (err: Error) => void {
  let loggedAt = 0;
  return (err) => {
    const now = Date.now();
    if (now - loggedAt < 10_000) return;
    loggedAt = now;
    log.warn({ err: err.message }, 'postgres connection lost; queries fail until it answers again');
  };
}

export interface DbOptions {
  /** How long a query waits for a connection (a free one, or a new one to a Postgres that does not answer), ms. */
  connectTimeoutMs?: number;
  /** Told once per lost connection (Postgres restarted, the network cut); nothing else is needed of it. */
  onConnectionError?: (err: Error) => void;
}

export function createDb(url: string, poolSize: number, options: DbOptions = {}): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 0,
  });
  const lost = options.onConnectionError ?? (() => {});
  // A pg client whose connection drops emits 'error'; an 'error' event nobody listens to ends the
  // process. The pool listens only while a client is idle (its 'error' below), not while one is
  // checked out — a transaction, the usage drain's COPY client — so every client gets a listener
  // of its own the moment it is made. The query in flight fails on its own; the pool drops the client.
  pool.on('connect', (client) => {
    client.on('error', lost);
  });
  pool.on('error', lost);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  pools.set(db, pool);
  return db;
}

/**
 * A client of the database's own pool, for what kysely does not speak (COPY); the caller releases
 * it. Shares the pool's size limit with every query of the process.
 */
export function rawClient(db: Db): Promise<pg.PoolClient> {
  const pool = pools.get(db);
  if (!pool) throw new Error('rawClient: this Db was not made by createDb');
  return pool.connect();
}
