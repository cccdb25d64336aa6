import type { Db } from './index.js';

export interface UserLimits {
  rpm_limit?: number | null;
  tpm_limit?: number | null;
  concurrency_limit?: number | null;
  discount_percent?: number;
}

export function updateUserLimits(db: Db, userId: string, limits: UserLimits) {
  return db
    .updateTable('users')
    .set({ ...limits, updated_at: new Date() })
    .where('id', '=', userId)
    .returning(['id', 'email', 'rpm_limit', 'tpm_limit', 'concurrency_limit', 'discount_percent'])
    .executeTakeFirstOrThrow();
}
