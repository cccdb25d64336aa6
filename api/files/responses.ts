import { z } from 'zod';
import type { fileObject } from '../../shared/batches/files.js';
import { sameType, whole } from '../openapi/response-fields.js';
import { cursorList } from '../videos/responses.js';

/** OpenAI's file object: a batch's input (`batch`) or its output and error files (`batch_output`). */
const file = z.strictObject({
  id: z.string(),
  object: z.literal('file'),
  bytes: whole,
  created_at: whole,
  filename: z.string(),
  purpose: z.enum(['batch', 'batch_output']),
  status: z.literal('processed'),
  expires_at: z.null(),
  status_details: z.null(),
});
sameType<ReturnType<typeof fileObject>, z.infer<typeof file>>(true);

export const FILE_RESPONSES = {
  one: file,
  list: cursorList(file),
  deleted: z.strictObject({ id: z.string(), object: z.literal('file'), deleted: z.literal(true) }),
};
