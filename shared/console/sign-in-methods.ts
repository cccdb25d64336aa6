import type { Db } from '../db/index.js';
import type { User } from '../db/schema.js';
import { GatewayError } from '../errors.js';

/**
 * 409 `last_sign_in_method` when removing one passkey or identity would leave the account no way to
 * sign in (no password, no other passkey, no other linked provider).
 */
export async function assertAnotherWayIn(
  db: Db,
  user: User,
  removing: { passkeyId?: string; provider?: string },
): Promise<void> {
  if (user.password_hash) return;
  const passkeys = await db.selectFrom('passkeys').select('id').where('user_id', '=', user.id).execute();
  const identities = await db.selectFrom('user_identities').select('provider').where('user_id', '=', user.id).execute();
  const left =
    passkeys.filter((p) => p.id !== removing.passkeyId).length +
    identities.filter((i) => i.provider !== removing.provider).length;
  if (left === 0)
    throw new GatewayError(
      'last_sign_in_method',
      409,
      "this is the account's last way to sign in: set a password (POST /api/v1/auth/password/change) or add another first",
    );
}
