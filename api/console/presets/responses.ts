import { z } from 'zod';
import { sameType, timestamp, whole } from '../../openapi/response-fields.js';
import { dataEnvelope, pageEnvelope } from '../envelope.js';
import type { presetView } from './preset-body.js';

const preset = z.strictObject({
  slug: z.string(),
  /** What a request names to route through it: `@preset/<slug>`. */
  model: z.string(),
  models: z.array(z.string()),
  strategy: z.enum(['ordered', 'cost', 'latency', 'weighted']),
  /** One weight per model with the `weighted` strategy; else null. */
  weights: z.array(z.number()).nullable(),
  preferred_providers: z
    .strictObject({ order: z.array(z.string()).optional(), only: z.array(z.string()).optional() })
    .nullable(),
  cache_ttl_seconds: whole.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
sameType<ReturnType<typeof presetView>, z.infer<typeof preset>>(true);

export const PRESET_RESPONSES = { one: dataEnvelope(preset), page: pageEnvelope(preset) };
