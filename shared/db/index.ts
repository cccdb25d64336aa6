import pg from 'pg';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
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

export function createDb(url: string, poolSize: number): Db {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, idleTimeoutMillis: 30_000 });
  // An idle client's network error is reported on the pool; without a listener it would crash the process.
  pool.on('error', () => {});
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
