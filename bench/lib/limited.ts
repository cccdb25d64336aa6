// The limits the benchmarks set at every layer (key, account, group), far above what a run sends
// (≈ 2,000 calls/s at most), so nothing is ever refused: what they measure is the cost of checking.
import type { GatewayUnderTest } from './gateway.js';

export const LIMITS = {
  key: { rpm: 1_000_000, tpm: 100_000_000, concurrency: 1_000 },
  user: { rpm: 2_000_000, tpm: 200_000_000, concurrency: 2_000 },
  group: { rpm: 3_000_000, tpm: 300_000_000, concurrency: 3_000 },
  caps: { total: 1_000_000_000_000, daily: 100_000_000_000, monthly: 1_000_000_000_000 },
};

/** The catalog group `limited`, for `startGateway`'s `catalogExtra.groups`. */
export const LIMITED_GROUP = {
  id: 'limited',
  models: ['*'],
  rpm_limit: LIMITS.group.rpm,
  tpm_limit: LIMITS.group.tpm,
  concurrency_limit: LIMITS.group.concurrency,
};

/**
 * A new account with the account layer's limits; returns its e-mail and the `key:create` flags of
 * a key with the key layer's limits in the group `limited`.
 */
export async function limitedAccount(
  gw: GatewayUnderTest,
  name: string,
): Promise<{ email: string; keyFlags: string[] }> {
  const email = `bench-${name}-${Date.now().toString(36)}@example.test`;
  await gw.cli([
    'user:create',
    '--email',
    email,
    '--password',
    'bench-password-123',
    '--balance-micro-usd',
    '1000000000000',
  ]);
  await gw.cli([
    'user:limits',
    '--email',
    email,
    '--rpm',
    String(LIMITS.user.rpm),
    '--tpm',
    String(LIMITS.user.tpm),
    '--concurrency',
    String(LIMITS.user.concurrency),
  ]);
  const keyFlags = [
    '--group',
    'limited',
    '--rpm',
    String(LIMITS.key.rpm),
    '--tpm',
    String(LIMITS.key.tpm),
    '--concurrency',
    String(LIMITS.key.concurrency),
  ];
  return { email, keyFlags };
}
