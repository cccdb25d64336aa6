import { countTokensRequestSchema, messagesRequestSchema } from '../../shared/protocols/anthropic/messages-request.js';
import { embedContentSchema, batchEmbedContentsSchema } from '../../shared/protocols/embeddings/schemas.js';
import { contentRequestSchema, countContentTokensSchema } from '../../shared/protocols/gemini/content-request.js';
import { countContentTokens } from '../content/count-tokens.js';
import { getContentModel, listContentModels } from '../content/models.js';
import { generateContentSurface } from '../content/surface.js';
import { batchEmbedContents, embedContent } from '../embeddings/surfaces.js';
import { countMessageTokens } from '../messages/count-tokens.js';
import { messagesSurface } from '../messages/surface.js';
import {
  cancelMessageBatch,
  createMessageBatch,
  createMessageBatchSchema,
  getMessageBatch,
  listMessageBatches,
  messageBatchListQuery,
  messageBatchResults,
} from '../messages/message-batches.js';
import type { Route, RouteGroup } from './route.js';
import { BATCH_RESPONSES } from '../batches/responses.js';
import { CONTENT_MODEL_RESPONSES } from '../content/responses.js';
import {
  MESSAGE_BATCH_CANCELING_RESPONSE,
  MESSAGE_BATCH_CREATE_EXAMPLES,
  MESSAGE_BATCH_RESPONSE,
  MESSAGE_BATCH_RESULTS_RESPONSE,
  MESSAGE_BATCHES_RESPONSE,
} from './examples/batches.js';
import { CONTENT_MODEL_RESPONSE, CONTENT_MODELS_RESPONSE } from './examples/models.js';
import {
  BATCH_EMBED_CONTENTS_EXAMPLES,
  CONTENT_COUNT_TOKENS_EXAMPLES,
  COUNT_TOKENS_EXAMPLES,
  EMBED_CONTENT_EXAMPLES,
  GENERATE_CONTENT_EXAMPLES,
  MESSAGES_EXAMPLES,
  STREAM_GENERATE_CONTENT_EXAMPLES,
} from './examples/text.js';

// The native protocol surfaces under the spec's prefixes and under the older unprefixed routes, which stay.

const messages = (prefix: string, older: boolean): Route[] => [
  {
    method: 'post',
    path: `${prefix}/messages`,
    tag: 'Messages',
    summary: `Messages-style call (any chat model, translated where its upstream speaks another protocol), plain or streamed with \`stream: true\`${older ? ' — the older unprefixed route' : ''}`,
    auth: 'messagesKey',
    body: messagesRequestSchema,
    examples: MESSAGES_EXAMPLES,
    streams: true,
    fast: { generation: messagesSurface },
  },
  {
    method: 'post',
    path: `${prefix}/messages/count_tokens`,
    tag: 'Messages',
    summary:
      "The prompt's input tokens, counted by the gateway with the model's tokenizer (`{input_tokens}`; nothing charged)",
    auth: 'messagesKey',
    body: countTokensRequestSchema,
    examples: COUNT_TOKENS_EXAMPLES,
    handler: countMessageTokens,
  },
  ...messageBatches(prefix),
];

// Anthropic's Message Batches, on the same batch engine as the Batch API (docs/reference/batches.md).
const messageBatches = (prefix: string): Route[] => [
  {
    method: 'post',
    path: `${prefix}/messages/batches`,
    tag: 'Message Batches',
    summary:
      'Create a Message Batch: inline `requests[]` of `{custom_id, params}`, each run as the same Messages call, charged less the model’s `pricing.batch_discount_percent`',
    auth: 'messagesKey',
    response: BATCH_RESPONSES.message,
    body: createMessageBatchSchema,
    examples: MESSAGE_BATCH_CREATE_EXAMPLES,
    handler: createMessageBatch,
  },
  {
    method: 'get',
    path: `${prefix}/messages/batches`,
    tag: 'Message Batches',
    summary: "The account's Message Batches, newest first (`after_id`, `before_id`, `limit`)",
    auth: 'messagesKey',
    response: BATCH_RESPONSES.messages,
    query: messageBatchListQuery,
    examples: { response: MESSAGE_BATCHES_RESPONSE },
    handler: listMessageBatches,
  },
  {
    method: 'get',
    path: `${prefix}/messages/batches/:id`,
    tag: 'Message Batches',
    summary: 'One Message Batch, its request_counts live',
    auth: 'messagesKey',
    response: BATCH_RESPONSES.message,
    examples: { response: MESSAGE_BATCH_RESPONSE },
    handler: getMessageBatch,
  },
  {
    method: 'post',
    path: `${prefix}/messages/batches/:id/cancel`,
    tag: 'Message Batches',
    summary: 'Cancel a Message Batch: `canceling` until the requests in flight end',
    auth: 'messagesKey',
    response: BATCH_RESPONSES.message,
    examples: { response: MESSAGE_BATCH_CANCELING_RESPONSE },
    handler: cancelMessageBatch,
  },
  {
    method: 'get',
    path: `${prefix}/messages/batches/:id/results`,
    tag: 'Message Batches',
    summary:
      "An ended Message Batch's results, JSONL in request order (as Anthropic's API, sent as `application/binary`)",
    auth: 'messagesKey',
    media: 'application/binary',
    examples: { response: MESSAGE_BATCH_RESULTS_RESPONSE },
    handler: messageBatchResults,
  },
];

/** The Messages-style surface. */
export const messagesRoutes: RouteGroup = {
  name: 'messages',
  routes: [...messages('/native-messages/v1', false), ...messages('/v1', true)],
};

const TRANSLATED = 'any chat model, translated where its upstream speaks another protocol';

// Any other `{model}:method` answers 501 in this protocol's format (api/http/router.ts).
const content = (prefix: string, older: boolean): Route[] => [
  {
    method: 'get',
    path: `${prefix}/models`,
    tag: 'Generative content',
    summary: `The chat models this key may call, as \`models/{id}\`${older ? ' (older unprefixed route)' : ''}`,
    auth: 'contentKey',
    response: CONTENT_MODEL_RESPONSES.list,
    examples: { response: CONTENT_MODELS_RESPONSE },
    handler: listContentModels,
  },
  {
    method: 'get',
    path: `${prefix}/models/*model`,
    tag: 'Generative content',
    summary: 'One model',
    auth: 'contentKey',
    response: CONTENT_MODEL_RESPONSES.one,
    examples: { response: CONTENT_MODEL_RESPONSE },
    handler: getContentModel,
  },
  {
    method: 'post',
    path: `${prefix}/models/*model:generateContent`,
    tag: 'Generative content',
    summary: `A generation (${TRANSLATED})`,
    auth: 'contentKey',
    body: contentRequestSchema,
    examples: GENERATE_CONTENT_EXAMPLES,
    fast: { generation: generateContentSurface, stream: false },
  },
  {
    method: 'post',
    path: `${prefix}/models/*model:streamGenerateContent`,
    tag: 'Generative content',
    summary: `A streamed generation, SSE with \`?alt=sse\` (${TRANSLATED})`,
    auth: 'contentKey',
    body: contentRequestSchema,
    media: 'text/event-stream',
    examples: STREAM_GENERATE_CONTENT_EXAMPLES,
    streams: true,
    fast: { generation: generateContentSurface, stream: true },
  },
  {
    method: 'post',
    path: `${prefix}/models/*model:countTokens`,
    tag: 'Generative content',
    summary: "`{totalTokens}`, counted by the gateway with the model's tokenizer (nothing charged)",
    auth: 'contentKey',
    body: countContentTokensSchema,
    examples: CONTENT_COUNT_TOKENS_EXAMPLES,
    handler: countContentTokens,
  },
  {
    method: 'post',
    path: `${prefix}/models/*model:embedContent`,
    tag: 'Generative content',
    summary: 'One embedding (embedding models): `{embedding: {values}}`',
    auth: 'contentKey',
    body: embedContentSchema,
    examples: EMBED_CONTENT_EXAMPLES,
    fast: { embeddings: embedContent },
  },
  {
    method: 'post',
    path: `${prefix}/models/*model:batchEmbedContents`,
    tag: 'Generative content',
    summary: 'Several embeddings in one call (embedding models): `{embeddings: [{values}]}`',
    auth: 'contentKey',
    body: batchEmbedContentsSchema,
    examples: BATCH_EMBED_CONTENTS_EXAMPLES,
    fast: { embeddings: batchEmbedContents },
  },
];

/** The generateContent-style surface. */
export const contentRoutes: RouteGroup = {
  name: 'content',
  routes: [...content('/native-content/v1beta', false), ...content('/v1beta', true)],
};
