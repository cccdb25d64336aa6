import { AT, one, page } from './common.js';

/** The console's API keys: the key as it is shown (never its secret, except once when it is made). */

export const KEY = {
  id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  name: 'production',
  prefix: 'sk-Ab3d',
  last4: 'x9Qz',
  status: 'active',
  expires_at: null,
  created_at: AT,
  group: 'default',
  ip_allowlist: [],
  asset_access: 'own',
  compatibility_profile: 'standard_v1',
  rpm_limit: 600,
  tpm_limit: null,
  concurrency_limit: null,
  total_micro_usd: null,
  daily_micro_usd: 2_500_000,
  monthly_micro_usd: null,
  tags: ['web'],
  usage_access: false,
  default_preset: null,
  budget: { limit_micro_usd: 10_000_000, period: 'month', soft_threshold_percent: 80 },
  cache_ttl_seconds: null,
};

export const KEY_CREATE_EXAMPLES = {
  request: { name: 'production', rpm_limit: 600, daily_micro_usd: 2_500_000, tags: ['web'] },
  response: one({ ...KEY, key: 'sk-Ab3d…the full secret, shown only here…x9Qz' }, 'req_8c1f2e'),
};
export const KEY_UPDATE_EXAMPLES = {
  request: { status: 'disabled' },
  response: one({ ...KEY, status: 'disabled' }, 'req_8c1f2f'),
};
export const KEYS_RESPONSE = page(KEY, 'req_8c1f30');
export const KEY_RESPONSE = one(KEY, 'req_8c1f31');
export const KEY_REVOKED_RESPONSE = one({ ...KEY, status: 'revoked' }, 'req_8c1f32');
export const KEY_GROUPS_RESPONSE = one(
  [
    { id: 'default', models: '*', discount_percent: 0, rpm_limit: null, tpm_limit: null, concurrency_limit: null },
    {
      id: 'team',
      models: ['claude-haiku', 'gpt-4o-mini'],
      discount_percent: 10,
      rpm_limit: 600,
      tpm_limit: null,
      concurrency_limit: 8,
    },
  ],
  'req_8c1f33',
);
