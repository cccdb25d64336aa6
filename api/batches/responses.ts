import { z } from 'zod';
import type { batchObject } from '../../shared/batches/batch-view.js';
import type { messageBatchObject } from '../../shared/batches/message-batch-view.js';
import { sameType, whole } from '../openapi/response-fields.js';
import { cursorList } from '../videos/responses.js';

// The batch objects of both batch APIs, on one engine (docs/reference/batches.md): OpenAI's (Unix
// seconds) and Anthropic's Message Batch (ISO 8601).

const unix = whole.nullable();

const batch = z.strictObject({
  id: z.string(),
  object: z.literal('batch'),
  endpoint: z.string(),
  /** Why the validation refused the input file: `line` names the line (1-based) where it is about one. */
  errors: z
    .strictObject({
      object: z.literal('list'),
      data: z.array(
        z.strictObject({ code: z.string(), message: z.string(), param: z.string().nullable(), line: whole.nullable() }),
      ),
    })
    .nullable(),
  input_file_id: z.string().nullable(),
  completion_window: z.string(),
  status: z.enum([
    'validating',
    'failed',
    'in_progress',
    'finalizing',
    'completed',
    'expired',
    'cancelling',
    'cancelled',
  ]),
  output_file_id: z.string().nullable(),
  error_file_id: z.string().nullable(),
  created_at: unix,
  in_progress_at: unix,
  expires_at: unix,
  finalizing_at: unix,
  completed_at: unix,
  failed_at: unix,
  expired_at: unix,
  cancelling_at: unix,
  cancelled_at: unix,
  request_counts: z.strictObject({ total: whole, completed: whole, failed: whole }),
  usage: z.strictObject({
    input_tokens: whole,
    input_tokens_details: z.strictObject({ cached_tokens: whole }),
    output_tokens: whole,
    output_tokens_details: z.strictObject({ reasoning_tokens: whole }),
    total_tokens: whole,
  }),
  metadata: z.record(z.string(), z.string()).nullable(),
});
sameType<ReturnType<typeof batchObject>, z.infer<typeof batch>>(true);

const iso = z.iso.datetime();
const messageBatch = z.strictObject({
  id: z.string(),
  type: z.literal('message_batch'),
  processing_status: z.enum(['in_progress', 'canceling', 'ended']),
  request_counts: z.strictObject({
    processing: whole,
    succeeded: whole,
    errored: whole,
    canceled: whole,
    expired: whole,
  }),
  ended_at: iso.nullable(),
  created_at: iso,
  expires_at: iso,
  archived_at: z.null(),
  cancel_initiated_at: iso.nullable(),
  /** Once it ended. */
  results_url: z.string().nullable(),
});
sameType<ReturnType<typeof messageBatchObject>, z.infer<typeof messageBatch>>(true);

export const BATCH_RESPONSES = {
  one: batch,
  list: cursorList(batch),
  message: messageBatch,
  /** Anthropic's list: `after_id` = the previous page's `last_id`. */
  messages: z.strictObject({
    data: z.array(messageBatch),
    has_more: z.boolean(),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
  }),
};
