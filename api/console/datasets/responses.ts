import { z } from 'zod';
import { timestamp, whole } from '../../openapi/response-fields.js';
import { dataEnvelope, pageEnvelope } from '../envelope.js';

const datasetExport = z.strictObject({
  id: z.uuid(),
  status: z.enum(['queued', 'running', 'succeeded', 'failed']),
  /** The filters it was started with (the request's fields). */
  filters: z.record(z.string(), z.unknown()),
  /** How many records the file holds, once written. */
  records: whole.nullable(),
  error: z.string().nullable(),
  created_at: timestamp,
  finished_at: timestamp.nullable(),
  /** A link valid 15 minutes, for this account only; null until the file is written. */
  download: z.strictObject({ url: z.string(), expires_at: timestamp }).nullable(),
});

export const DATASET_RESPONSES = {
  one: dataEnvelope(datasetExport),
  page: pageEnvelope(datasetExport),
};
