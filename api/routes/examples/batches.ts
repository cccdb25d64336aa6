import { CHAT_COMPLETION, MESSAGE } from './text.js';
import { ORIGIN, UNIX } from './common.js';

/**
 * Files and OpenAI's Batch API, and Anthropic's Message Batches: OpenAI's and Anthropic's own
 * objects, run by the gateway's workers (docs/reference/batches.md).
 */

const file = {
  id: 'file-OeKcuzRMjj1l1WnehRx0cJDv',
  object: 'file',
  bytes: 168,
  created_at: UNIX,
  filename: 'requests.jsonl',
  purpose: 'batch',
  status: 'processed',
  expires_at: null,
  status_details: null,
};
const output = {
  ...file,
  id: 'file-oR5Dvmgv2JSLnoXNoJcKuV7T-output',
  bytes: 1369,
  created_at: UNIX + 40,
  filename: 'batch_oR5Dvmgv2JSLnoXNoJcKuV7T_output.jsonl',
  purpose: 'batch_output',
};
const list = (...items: { id: string }[]) => ({
  object: 'list',
  data: items,
  has_more: false,
  first_id: items[0]!.id,
  last_id: items.at(-1)!.id,
});

/** The multipart form: `file` (JSONL) and `purpose=batch`. */
export const FILE_CREATE_EXAMPLES = { response: file };
export const FILES_RESPONSE = list(output, file);
export const FILE_RESPONSE = output;
export const FILE_DELETED_RESPONSE = { id: file.id, object: 'file', deleted: true };

/** An output file's lines: `{id, custom_id, response: {status_code, request_id, body}, error}`. */
export const FILE_CONTENT_RESPONSE = `${['first', 'second']
  .map((custom_id, i) =>
    JSON.stringify({
      id: `batch_req_vVFZHsF97xyXCoO97er4Ga_${i}`,
      custom_id,
      response: {
        status_code: 200,
        request_id: `batch_req_vVFZHsF97xyXCoO97er4Ga_${i}`,
        body: CHAT_COMPLETION,
      },
      error: null,
    }),
  )
  .join('\n')}\n`;

const tokens = (input: number, output: number) => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: input + output,
});

const batch = {
  id: 'batch_oR5Dvmgv2JSLnoXNoJcKuV7T',
  object: 'batch',
  endpoint: '/v1/chat/completions',
  errors: null,
  input_file_id: file.id,
  completion_window: '24h',
  status: 'validating',
  output_file_id: null,
  error_file_id: null,
  created_at: UNIX,
  in_progress_at: null,
  expires_at: UNIX + 86_400,
  finalizing_at: null,
  completed_at: null,
  failed_at: null,
  expired_at: null,
  cancelling_at: null,
  cancelled_at: null,
  request_counts: { total: 0, completed: 0, failed: 0 },
  usage: tokens(0, 0),
  metadata: { job: 'nightly' },
};
const completed = {
  ...batch,
  status: 'completed',
  output_file_id: output.id,
  in_progress_at: UNIX + 1,
  finalizing_at: UNIX + 39,
  completed_at: UNIX + 40,
  request_counts: { total: 2, completed: 2, failed: 0 },
  usage: tokens(48, 22),
};

export const BATCH_CREATE_EXAMPLES = {
  request: {
    input_file_id: file.id,
    endpoint: '/v1/chat/completions',
    completion_window: '24h',
    metadata: { job: 'nightly' },
  },
  response: batch,
};
export const BATCH_RESPONSE = completed;
export const BATCHES_RESPONSE = list(completed);
/** `cancelling` until the lines in flight end, then `cancelled` with the partial output. */
export const BATCH_CANCELLING_RESPONSE = { ...batch, status: 'cancelling', cancelling_at: UNIX + 5 };

const ISO = '2026-01-31T12:00:00.000Z';
const messageBatch = {
  id: 'msgbatch_013Zva2CMHLNnXjNJJKqJ2EF',
  type: 'message_batch',
  processing_status: 'in_progress',
  request_counts: { processing: 2, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
  ended_at: null,
  created_at: ISO,
  expires_at: '2026-02-01T12:00:00.000Z',
  archived_at: null,
  cancel_initiated_at: null,
  results_url: null,
};
const ended = {
  ...messageBatch,
  processing_status: 'ended',
  request_counts: { processing: 0, succeeded: 1, errored: 1, canceled: 0, expired: 0 },
  ended_at: '2026-01-31T12:00:40.000Z',
  results_url: `${ORIGIN}/v1/messages/batches/${messageBatch.id}/results`,
};

export const MESSAGE_BATCH_CREATE_EXAMPLES = {
  request: {
    requests: [
      {
        custom_id: 'first',
        params: { model: 'claude-sonnet-4', max_tokens: 256, messages: [{ role: 'user', content: 'Hello' }] },
      },
    ],
  },
  response: messageBatch,
};
export const MESSAGE_BATCH_RESPONSE = ended;
export const MESSAGE_BATCHES_RESPONSE = { data: [ended], has_more: false, first_id: ended.id, last_id: ended.id };
export const MESSAGE_BATCH_CANCELING_RESPONSE = {
  ...messageBatch,
  processing_status: 'canceling',
  cancel_initiated_at: '2026-01-31T12:00:05.000Z',
};

/** JSONL in request order: each line `succeeded` with its message, `errored`, `canceled` or `expired`. */
export const MESSAGE_BATCH_RESULTS_RESPONSE = `${[
  { custom_id: 'first', result: { type: 'succeeded', message: MESSAGE } },
  {
    custom_id: 'second',
    result: {
      type: 'errored',
      error: {
        type: 'error',
        error: {
          type: 'not_found_error',
          message: "model 'no-such-model' does not exist or does not serve chat/completions",
          code: 'model_not_found',
          details: { error_code: 'model_not_found' },
          param: 'model',
        },
        request_id: 'batch_req_mVTrOy10D3qJ64V7m-dRJoS0qZ7mn-pJ',
      },
    },
  },
]
  .map((line) => JSON.stringify(line))
  .join('\n')}\n`;
