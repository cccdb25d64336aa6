import { z } from 'zod';

const ASSET = /^asset:\/\/[A-Za-z0-9_-]{1,128}$/;
const DATA_URI = /^data:image\/[a-z0-9.+-]+;base64,/i;

/**
 * A reference: an `asset://<id>` of the account, an external https URL, or an inline
 * `data:image/…;base64` URI (checked against the model's reference_limits when the task is accepted).
 */
const referenceUrl = z.string().refine((url) => {
  if (ASSET.test(url) || DATA_URI.test(url)) return true;
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an asset://<asset_id> reference, an https URL or a data:image/…;base64 URI');

const part = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('text'), text: z.string().min(1) }),
    z.strictObject({
      type: z.literal('image_url'),
      role: z.enum(['first_frame', 'last_frame', 'reference_image']).default('first_frame'),
      image_url: z.strictObject({ url: referenceUrl }),
    }),
  ],
  { error: "unknown part type: expected 'text' or 'image_url'" },
);

/** `POST /v1/videos`; duration and resolution are checked against the model's offer separately. */
export const videoCreateSchema = z.strictObject({
  model: z.string({ error: 'required string' }).min(1),
  content: z.array(part, { error: 'required array' }).min(1, 'needs at least one part'),
  duration: z.number().positive().optional(),
  resolution: z.string().min(1).optional(),
  generate_audio: z.boolean().default(false),
});

export type VideoCreateRequest = z.infer<typeof videoCreateSchema>;
