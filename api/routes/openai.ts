import { chatRequestSchema } from '../../shared/protocols/openai/chat-request.js';
import { responsesRequestSchema } from '../../shared/protocols/responses/responses-request.js';
import { embeddingsRequestSchema } from '../../shared/protocols/embeddings/schemas.js';
import { jsonImageEditSchema, jsonImageGenerationSchema } from '../../shared/protocols/images/json-images.js';
import { logsQuerySchema, reportQuerySchema } from '../../shared/usage/report-query.js';
import { openAiEmbeddings } from '../embeddings/surfaces.js';
import { createEstimate, estimateAnswer, estimateSchema } from '../estimates/create-estimate.js';
import { jsonImages } from '../images/json-images.js';
import { chatCompletionsSurface } from '../openai/chat-surface.js';
import { getModel, listModels } from '../openai/models.js';
import { responsesSurface } from '../openai/responses-surface.js';
import { createScore, scoreSchema } from '../usage/create-score.js';
import { keyUsage } from '../usage/key-usage.js';
import { usageLogsRoute, usageReportRoute } from '../usage/usage-reports.js';
import type { RouteGroup } from './route.js';
import { MODEL_RESPONSE, MODELS_RESPONSE } from './examples/models.js';
import {
  IMAGE_EDIT_EXAMPLES,
  CHAT_EXAMPLES,
  EMBEDDINGS_EXAMPLES,
  IMAGE_GENERATION_EXAMPLES,
  RESPONSES_EXAMPLES,
} from './examples/text.js';
import {
  ESTIMATE_EXAMPLES,
  KEY_USAGE_RESPONSE,
  SCORE_EXAMPLES,
  USAGE_LOGS_RESPONSE,
  USAGE_REPORT,
} from './examples/usage.js';
import { keyUsageAnswer, scoreAnswer, usageLogsAnswer, usageReportAnswer } from '../usage/responses.js';
import { MODEL_RESPONSES } from '../openai/responses.js';

/** The OpenAI-compatible surface under /v1. */
export const openAiRoutes: RouteGroup = {
  name: 'openai',
  prefix: '/v1',
  routes: [
    {
      method: 'post',
      path: '/v1/chat/completions',
      tag: 'Chat',
      summary: 'Chat completions (OpenAI format), plain or streamed with `stream: true`',
      auth: 'apiKey',
      body: chatRequestSchema,
      examples: CHAT_EXAMPLES,
      streams: true,
      fast: { generation: chatCompletionsSurface },
    },
    {
      method: 'post',
      path: '/v1/responses',
      tag: 'Chat',
      summary:
        'Responses (OpenAI format) over any chat model, plain or streamed with `stream: true`; stateless (`store: true`, `previous_response_id`, `background` answer 400)',
      auth: 'apiKey',
      body: responsesRequestSchema,
      examples: RESPONSES_EXAMPLES,
      streams: true,
      fast: { generation: responsesSurface },
    },
    {
      method: 'post',
      path: '/v1/embeddings',
      tag: 'Embeddings',
      summary:
        'Embeddings (OpenAI format) for a string or an array of strings, `dimensions`, `encoding_format` float or base64; charged per input token',
      auth: 'apiKey',
      body: embeddingsRequestSchema,
      examples: EMBEDDINGS_EXAMPLES,
      fast: { embeddings: openAiEmbeddings },
    },
    {
      method: 'post',
      path: '/v1/images/generations',
      tag: 'Images',
      summary:
        "JSON image generation: `n` images of `size` (and `quality`), priced per image from the catalog; `response_format` `url` (a short-lived link of the gateway's, for this account) or `b64_json`",
      auth: 'apiKey',
      body: jsonImageGenerationSchema,
      examples: IMAGE_GENERATION_EXAMPLES,
      handler: (services) => jsonImages(services, 'generations'),
    },
    {
      method: 'post',
      path: '/v1/images/edits',
      tag: 'Images',
      summary:
        'JSON image edit: `images: [{image_url}]` (https, data URI or `asset://`), optional `mask`; as generations otherwise. Multipart answers 501',
      auth: 'apiKey',
      body: jsonImageEditSchema,
      examples: IMAGE_EDIT_EXAMPLES,
      handler: (services) => jsonImages(services, 'edits'),
    },
    {
      method: 'get',
      path: '/v1/models',
      tag: 'Models',
      summary: 'The models the key may call',
      auth: 'apiKey',
      response: MODEL_RESPONSES.list,
      examples: { response: MODELS_RESPONSE },
      handler: listModels,
    },
    {
      method: 'get',
      path: '/v1/models/*id',
      tag: 'Models',
      summary: 'One model by its API id (ids may contain `/`)',
      auth: 'apiKey',
      response: MODEL_RESPONSES.one,
      examples: { response: MODEL_RESPONSE },
      handler: getModel,
    },
    {
      method: 'post',
      path: '/v1/estimates',
      tag: 'Estimates',
      summary: 'What a call would cost this key (no upstream call, nothing reserved)',
      auth: 'apiKey',
      response: estimateAnswer,
      examples: ESTIMATE_EXAMPLES,
      body: estimateSchema,
      handler: createEstimate,
    },
    {
      method: 'get',
      path: '/v1/key/usage',
      tag: 'Usage',
      summary: "The key's own usage view (works whatever its usage-access switch)",
      auth: 'apiKey',
      response: keyUsageAnswer,
      examples: { response: KEY_USAGE_RESPONSE },
      responses: {
        200: 'the key usage view',
        401: 'invalid, revoked or expired key',
        403: 'disabled key',
        429: 'lookup frequency exceeded',
      },
      handler: keyUsage,
    },
    {
      method: 'get',
      path: '/v1/usage/report',
      tag: 'Usage',
      summary:
        "The account's spend by tag, model, key or day over at most 93 days (JSON, or a CSV file with format=csv); needs a key with usage access",
      auth: 'apiKey',
      response: usageReportAnswer,
      examples: { response: USAGE_REPORT },
      query: reportQuerySchema,
      responses: { 200: '{group_by, start, end, rows, total}', 403: 'usage_access_disabled' },
      handler: usageReportRoute,
    },
    {
      method: 'get',
      path: '/v1/usage/logs',
      tag: 'Usage',
      summary: "A page of the account's request records, newest first (cursor paging); needs a key with usage access",
      auth: 'apiKey',
      response: usageLogsAnswer,
      examples: { response: USAGE_LOGS_RESPONSE },
      query: logsQuerySchema,
      responses: { 200: '{object: list, data, has_more, next_cursor}', 403: 'usage_access_disabled' },
      handler: usageLogsRoute,
    },
    {
      method: 'post',
      path: '/v1/scores',
      tag: 'Usage',
      summary: 'Score a request or session of the account; the same name again replaces the value',
      auth: 'apiKey',
      response: scoreAnswer,
      examples: SCORE_EXAMPLES,
      body: scoreSchema,
      responses: { 200: 'the score', 404: 'no such request or session in this account' },
      handler: createScore,
    },
  ],
};
