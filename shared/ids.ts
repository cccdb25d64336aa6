import { randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 from a CSPRNG (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

// Request ids need randomness on every call: draw it from a refilled pool, not a call into the CSPRNG each time.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function pooledByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** Time-ordered request ids: sortable in logs, unique without coordination (14 base62 characters ≈ 83 random bits). */
export function newRequestId(): string {
  let id = `req_${Date.now().toString(36)}`;
  for (let n = 0; n < 14; ) {
    const byte = pooledByte();
    if (byte < 248) {
      id += ALPHABET[byte % 62];
      n++;
    }
  }
  return id;
}

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function acceptClientRequestId(value: string | undefined): string | undefined {
  return value !== undefined && CLIENT_REQUEST_ID.test(value) ? value : undefined;
}

/** A UUID in its text form (any version), as Postgres prints it; checked before a `uuid` column is queried. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
