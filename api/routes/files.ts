import {
  batchListQuery,
  cancelOpenAiBatch,
  createBatchSchema,
  createOpenAiBatch,
  getOpenAiBatch,
  listOpenAiBatches,
} from '../batches/openai-batches.js';
import { createFile } from '../files/create-file.js';
import { deleteFile, fileContent, fileListQuery, getFileOrLink, listFiles } from '../files/read-files.js';
import type { RouteGroup } from './route.js';
import {
  BATCH_CANCELLING_RESPONSE,
  BATCH_CREATE_EXAMPLES,
  BATCH_RESPONSE,
  BATCHES_RESPONSE,
  FILE_CONTENT_RESPONSE,
  FILE_CREATE_EXAMPLES,
  FILE_DELETED_RESPONSE,
  FILE_RESPONSE,
  FILES_RESPONSE,
} from './examples/batches.js';
import { BATCH_RESPONSES } from '../batches/responses.js';
import { FILE_RESPONSES } from '../files/responses.js';

/** Files (batch input and output, and the signed links of stored results) and OpenAI's Batch API. */
export const fileRoutes: RouteGroup = {
  name: 'files',
  prefix: '/v1',
  routes: [
    {
      method: 'post',
      path: '/v1/files',
      tag: 'Files',
      summary:
        'Upload a batch input file: multipart `file` (JSONL, at most 200 MB and 50,000 lines) and `purpose=batch`, streamed to object storage',
      auth: 'apiKey',
      response: FILE_RESPONSES.one,
      examples: FILE_CREATE_EXAMPLES,
      responses: { 200: 'the file object', 400: 'not multipart, no file, purpose not batch', 413: 'over 200 MB' },
      rawBody: {
        media: 'multipart/form-data',
        schema: {
          type: 'object',
          properties: {
            file: {
              type: 'string',
              format: 'binary',
              description: 'JSONL: one `{custom_id, method, url, body}` a line',
            },
            purpose: { const: 'batch' },
          },
          required: ['file', 'purpose'],
        },
        example: { file: 'requests.jsonl', purpose: 'batch' },
      },
      handler: createFile,
    },
    {
      method: 'get',
      path: '/v1/files',
      tag: 'Files',
      summary: "The account's files, newest first (cursor paging with `after`)",
      auth: 'apiKey',
      response: FILE_RESPONSES.list,
      examples: { response: FILES_RESPONSE },
      query: fileListQuery,
      handler: listFiles,
    },
    {
      method: 'get',
      path: '/v1/files/:id',
      tag: 'Files',
      summary:
        'A file object (`file-…` ids, with the API key), or a stored result behind a short-lived signed link (any other id: no API key, `Range` supported)',
      auth: 'apiKey',
      response: FILE_RESPONSES.one,
      examples: { response: FILE_RESPONSE },
      handler: getFileOrLink,
    },
    {
      method: 'head',
      path: '/v1/files/:id',
      tag: 'Files',
      summary: 'The headers of a stored result behind a signed link',
      auth: 'none',
      handler: getFileOrLink,
    },
    {
      method: 'get',
      path: '/v1/files/:id/content',
      tag: 'Files',
      summary: "A file's bytes (JSONL)",
      auth: 'apiKey',
      media: 'application/jsonl',
      examples: { response: FILE_CONTENT_RESPONSE },
      handler: fileContent,
    },
    {
      method: 'delete',
      path: '/v1/files/:id',
      tag: 'Files',
      summary: 'Delete a file and its bytes',
      auth: 'apiKey',
      response: FILE_RESPONSES.deleted,
      examples: { response: FILE_DELETED_RESPONSE },
      handler: deleteFile,
    },
    {
      method: 'post',
      path: '/v1/batches',
      tag: 'Batches',
      summary:
        'Create a batch from an uploaded file: each line runs as the same synchronous call, charged less the model’s `pricing.batch_discount_percent`',
      auth: 'apiKey',
      response: BATCH_RESPONSES.one,
      examples: BATCH_CREATE_EXAMPLES,
      body: createBatchSchema,
      handler: createOpenAiBatch,
    },
    {
      method: 'get',
      path: '/v1/batches',
      tag: 'Batches',
      summary: "The account's batches, newest first (cursor paging with `after`)",
      auth: 'apiKey',
      response: BATCH_RESPONSES.list,
      examples: { response: BATCHES_RESPONSE },
      query: batchListQuery,
      handler: listOpenAiBatches,
    },
    {
      method: 'get',
      path: '/v1/batches/:id',
      tag: 'Batches',
      summary: 'One batch, its request_counts live',
      auth: 'apiKey',
      response: BATCH_RESPONSES.one,
      examples: { response: BATCH_RESPONSE },
      handler: getOpenAiBatch,
    },
    {
      method: 'post',
      path: '/v1/batches/:id/cancel',
      tag: 'Batches',
      summary: 'Cancel a batch: `cancelling` until the lines in flight end, then `cancelled` with the partial output',
      auth: 'apiKey',
      response: BATCH_RESPONSES.one,
      examples: { response: BATCH_CANCELLING_RESPONSE },
      responses: { 200: 'the batch', 409: 'already ended' },
      handler: cancelOpenAiBatch,
    },
  ],
};
