import { z } from 'zod';
import type { groupView } from '../../../shared/keys/group-access.js';
import type { keyView } from '../../../shared/keys/key-settings.js';
import { sameType, timestamp, whole } from '../../openapi/response-fields.js';
import { dataEnvelope, pageEnvelope } from '../envelope.js';

const limit = whole.nullable();

/** A key as `keyView` shows it: never its secret. */
export const keyAnswer = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  last4: z.string(),
  status: z.enum(['active', 'disabled', 'revoked']),
  expires_at: timestamp.nullable(),
  created_at: timestamp,
  group: z.string(),
  ip_allowlist: z.array(z.string()),
  asset_access: z.enum(['own', 'all', 'none']),
  compatibility_profile: z.enum(['standard_v1', 'legacy_v1']),
  rpm_limit: limit,
  tpm_limit: limit,
  concurrency_limit: limit,
  total_micro_usd: limit,
  daily_micro_usd: limit,
  monthly_micro_usd: limit,
  /** A hard spending limit over a UTC period; the soft threshold mails the owner once per period. */
  budget: z
    .strictObject({
      limit_micro_usd: whole,
      period: z.enum(['day', 'week', 'month', 'total']),
      soft_threshold_percent: whole.nullable(),
    })
    .nullable(),
  tags: z.array(z.string()),
  usage_access: z.boolean(),
  default_preset: z.string().nullable(),
  /** Seconds the key's answers stay in the response cache; null: not set on the key. */
  cache_ttl_seconds: whole.nullable(),
});
sameType<ReturnType<typeof keyView>, z.infer<typeof keyAnswer>>(true);

export const groupAnswer = z.strictObject({
  id: z.string(),
  /** `*`: every model of the catalog. */
  models: z.union([z.literal('*'), z.array(z.string())]),
  discount_percent: z.number(),
  rpm_limit: limit,
  tpm_limit: limit,
  concurrency_limit: limit,
});
sameType<ReturnType<typeof groupView>, z.infer<typeof groupAnswer>>(true);

export const KEY_RESPONSES = {
  one: dataEnvelope(keyAnswer),
  page: pageEnvelope(keyAnswer),
  /** The created key with its full secret, shown this once. */
  created: dataEnvelope(keyAnswer.extend({ key: z.string() })),
  groups: dataEnvelope(z.array(groupAnswer)),
};
