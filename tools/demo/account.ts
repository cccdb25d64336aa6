import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createUser } from '../../shared/accounts/create-user.js';
import { creditBalance } from '../../shared/billing/credit.js';
import { findUserByEmail } from '../../shared/db/users.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { createKey } from '../../shared/keys/manage-keys.js';

export const DEMO_EMAIL = 'demo@gateway.local';
export const DEMO_PASSWORD = 'demo-password';
const DEMO_BALANCE = 10_000_000; // 10 USD

/**
 * The demo user and key, made on the first run. The key is kept in DATA_DIR/demo-key.txt so later
 * runs can print it again (the database keeps only its hash).
 */
export async function ensureDemoAccount(services: GatewayServices): Promise<string> {
  const file = path.join(services.config.dataDir, 'demo-key.txt');
  let user = await findUserByEmail(services.db, DEMO_EMAIL);
  if (!user) {
    user = await createUser(services.db, DEMO_EMAIL, DEMO_PASSWORD);
    await creditBalance(services.db, services.balances, user.id, DEMO_BALANCE, 'demo credit');
  } else {
    const saved = await readFile(file, 'utf8').catch(() => '');
    if (saved.trim()) return saved.trim();
  }
  const admin = {
    db: services.db,
    redis: services.redis,
    channel: services.redisKeys.keyInvalidation,
    catalog: services.catalog,
  };
  const { key } = await createKey(admin, user.id, { name: 'demo' });
  await mkdir(services.config.dataDir, { recursive: true });
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}
