import { revokeUserKeys } from '../db/api-keys.js';
import { disableAccountEndpoints } from '../db/webhook-endpoints.js';
import type { GatewayServices } from '../gateway/services.js';
import { publishOwnerChange } from '../keys/key-cache.js';

/**
 * Closes an account: every key revoked (dropped by every process at once), every session ended,
 * linked identities and passkeys removed, two-step verification off, the password cleared and the
 * e-mail released (rewritten to an address that cannot receive mail) so it can sign up again. The
 * user row, its ledger and usage stay: money and history are never deleted.
 */
export async function closeAccount(services: GatewayServices, userId: string): Promise<void> {
  const now = new Date();
  await services.db.transaction().execute(async (trx) => {
    await revokeUserKeys(trx, userId, now);
    await disableAccountEndpoints(trx, userId, now);
    await trx
      .updateTable('console_sessions')
      .set({ revoked_at: now })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute();
    await trx.deleteFrom('user_identities').where('user_id', '=', userId).execute();
    await trx.deleteFrom('passkeys').where('user_id', '=', userId).execute();
    await trx
      .updateTable('users')
      .set({
        email: `closed+${userId}@closed.invalid`,
        password_hash: null,
        two_factor_enabled: false,
        closed_at: now,
        updated_at: now,
      })
      .where('id', '=', userId)
      .execute();
  });
  await publishOwnerChange(services.redis, services.redisKeys.keyInvalidation, userId);
}
