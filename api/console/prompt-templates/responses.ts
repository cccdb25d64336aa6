import { z } from 'zod';
import { sameType, timestamp } from '../../openapi/response-fields.js';
import { dataEnvelope, pageEnvelope } from '../envelope.js';
import type { templateView } from './template-body.js';

const template = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  versions: z.array(
    z.strictObject({
      id: z.uuid(),
      label: z.string(),
      text: z.string(),
      /** Versions are chosen per request in proportion to their weights. */
      weight: z.number(),
      /** The `{{name}}` and `{{name|default}}` variables of its text, in order. */
      variables: z.array(z.string()),
      defaults: z.record(z.string(), z.string()),
    }),
  ),
  /** The keys whose requests it applies to. */
  key_ids: z.array(z.uuid()),
  created_at: timestamp,
  updated_at: timestamp,
});
sameType<ReturnType<typeof templateView>, z.infer<typeof template>>(true);

export const TEMPLATE_RESPONSES = { one: dataEnvelope(template), page: pageEnvelope(template) };
