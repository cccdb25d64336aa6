import { z } from 'zod';
import { imageGenerationSchema } from './generation-request.js';

const responseFormat = z.enum(['url', 'b64_json']).default('url');
const quality = z.string().min(1).optional();

/** `POST /v1/images/generations` (JSON): the task fields plus quality and how the images come back. */
export const jsonImageGenerationSchema = imageGenerationSchema.extend({ quality, response_format: responseFormat });

// An image the model reads: an https URL, a data URI, or an asset of the account.
const REFERENCE = /^(https:\/\/\S+|data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+|asset:\/\/\S+)$/i;
const imageReference = z.looseObject({
  image_url: z
    .string({ error: 'required string' })
    .regex(REFERENCE, 'an https URL, a data:image/…;base64 URI or an asset:// reference'),
});

/** `POST /v1/images/edits` with a JSON body: reference images by URL, data URI or `asset://` (multipart answers 501). */
export const jsonImageEditSchema = jsonImageGenerationSchema.extend({
  images: z.array(imageReference, { error: 'required array of {image_url}' }).min(1).max(16),
  mask: imageReference.optional(),
});

export type JsonImageGeneration = z.infer<typeof jsonImageGenerationSchema>;
export type JsonImageEdit = z.infer<typeof jsonImageEditSchema>;
