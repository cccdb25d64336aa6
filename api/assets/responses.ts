import { z } from 'zod';
import type { assetView } from '../../shared/assets/scope.js';
import { dataEnvelope, pageEnvelope } from '../console/envelope.js';
import { sameType, timestamp, whole } from '../openapi/response-fields.js';

// What the asset routes answer: bare under /v1 (an API key), in the console's envelopes under /api/v1.

const asset = z.strictObject({
  id: z.string(),
  object: z.literal('asset'),
  /** What a request names to use it: `asset://<id>`. */
  reference: z.string(),
  filename: z.string(),
  content_type: z.string(),
  size_bytes: whole,
  width: whole,
  height: whole,
  sha256: z.string(),
  created_at: timestamp,
});
sameType<ReturnType<typeof assetView>, z.infer<typeof asset>>(true);

/** A reserved upload: PUT the bytes to `upload_url` with exactly `headers`, then complete it. */
const reserved = z.strictObject({
  upload_id: z.string(),
  upload_url: z.string(),
  method: z.literal('PUT'),
  headers: z.record(z.string(), z.string()),
  expires_at: timestamp,
});

/** A download link valid 15 minutes, for this account only. */
const link = z.strictObject({ url: z.string(), expires_at: timestamp });

export const KEY_ASSET_RESPONSES = {
  one: asset,
  reserved,
  link,
  list: z.strictObject({
    object: z.literal('list'),
    data: z.array(asset),
    has_more: z.boolean(),
    /** The `cursor` of the next page; null on the last. */
    next_cursor: z.string().nullable(),
  }),
  /** The local storage driver's PUT: the bytes arrived. */
  stored: z.strictObject({ upload_id: z.string(), size_bytes: whole }),
};

export const CONSOLE_ASSET_RESPONSES = {
  one: dataEnvelope(asset),
  reserved: dataEnvelope(reserved),
  link: dataEnvelope(link),
  page: pageEnvelope(asset),
};
