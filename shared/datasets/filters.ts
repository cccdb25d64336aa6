import { z } from 'zod';
import { badRequest } from '../errors.js';

const instant = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp with a time zone' });

/** `POST /api/v1/datasets/exports`: which usage records an export holds. */
export const exportRequestSchema = z.strictObject({
  start: instant,
  end: instant,
  model: z.string().min(1).max(128).optional(),
  tag: z.string().min(1).max(64).optional(),
  key_id: z.uuid().optional(),
  score_name: z
    .string()
    .regex(/^[a-z0-9._-]{1,40}$/)
    .optional(),
  score_min: z.number().min(-1_000_000).max(1_000_000).optional(),
  score_max: z.number().min(-1_000_000).max(1_000_000).optional(),
});

export type DatasetFilters = z.infer<typeof exportRequestSchema>;

/** `end` after `start`; score bounds only with a score name. */
export function checkFilters(f: DatasetFilters): DatasetFilters {
  if (new Date(f.end) <= new Date(f.start)) throw badRequest("invalid value for 'end': must be after 'start'", 'end');
  if ((f.score_min !== undefined || f.score_max !== undefined) && f.score_name === undefined) {
    throw badRequest("invalid value for 'score_name': score_min and score_max filter by a score name", 'score_name');
  }
  return f;
}
