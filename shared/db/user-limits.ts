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

/** Replaces the groups the operator lets this user choose in the console (CLI `user:groups`). */
export async function setAllowedGroups(db: Db, userId: string, groups: string[]): Promise<string[]> {
  const row = await db
    .updateTable('users')
    .set({ allowed_groups: groups, updated_at: new Date() })
    .where('id', '=', userId)
    .returning('allowed_groups')
    .executeTakeFirstOrThrow();
  return row.allowed_groups;
}
