import { hash, verify } from '@node-rs/argon2';

// One of OWASP's equivalent argon2id settings (7 MiB, 5 passes, 1 lane; the same defence as 19 MiB
// with 2 passes). Measured with `npm run bench:sign-in`: the 19 MiB setting evicted the data plane's
// caches and cost chat 11.6 % of its throughput beside 10 sign-ins/s; this one 7.3 %
// (docs/decisions/0008-password-hashing.md).
// A stored hash carries its own parameters, so older hashes still verify.
export const ARGON2_OPTIONS = { memoryCost: 7_168, timeCost: 5, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

export async function verifyPassword(hashed: string | null, password: string): Promise<boolean> {
  if (!hashed) return false;
  try {
    return await verify(hashed, password);
  } catch {
    return false;
  }
}
