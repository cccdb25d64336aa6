import { z } from 'zod';
import { ENDPOINTS } from '../../shared/catalog/schema.js';
import { whole } from '../openapi/response-fields.js';

/** A catalog model, with the gateway endpoints it serves; or one of the account's presets (`@preset/<slug>`, no endpoints). */
const model = z.strictObject({
  id: z.string(),
  object: z.literal('model'),
  created: whole,
  owned_by: z.string(),
  endpoints: z.array(z.enum(ENDPOINTS)).optional(),
});

export const MODEL_RESPONSES = {
  one: model,
  list: z.strictObject({ object: z.literal('list'), data: z.array(model) }),
};
