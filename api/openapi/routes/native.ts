import {
  countTokensRequestSchema,
  messagesRequestSchema,
} from '../../../shared/protocols/anthropic/messages-request.js';
import { contentRequestSchema } from '../../../shared/protocols/gemini/content-request.js';
import type { RouteDoc } from '../route-doc.js';

const messages = (prefix: string, older: boolean): RouteDoc[] => [
  {
    method: 'post',
    path: `${prefix}/messages`,
    tag: 'Messages',
    summary: `Messages-style call (any chat model, translated where its upstream speaks another protocol), plain or streamed with \`stream: true\`${older ? ' — the older unprefixed route' : ''}`,
    auth: 'messagesKey',
    body: messagesRequestSchema,
    streams: true,
  },
  {
    method: 'post',
    path: `${prefix}/messages/count_tokens`,
    tag: 'Messages',
    summary:
      "The prompt's input tokens, counted by the gateway with the model's tokenizer (`{input_tokens}`; nothing charged)",
    auth: 'messagesKey',
    body: countTokensRequestSchema,
  },
];

const content = (prefix: string, older: boolean): RouteDoc[] => [
  {
    method: 'get',
    path: `${prefix}/models`,
    tag: 'Generative content',
    summary: `The chat models this key may call, as \`models/{id}\`${older ? ' (older unprefixed route)' : ''}`,
    auth: 'contentKey',
  },
  {
    method: 'get',
    path: `${prefix}/models/{model}`,
    tag: 'Generative content',
    summary: 'One model',
    auth: 'contentKey',
  },
  {
    method: 'post',
    path: `${prefix}/models/{model}`,
    tag: 'Generative content',
    summary:
      '`{model}:generateContent`, `{model}:streamGenerateContent?alt=sse` (any chat model, translated where its upstream speaks another protocol), `{model}:countTokens` (`{totalTokens}`, counted by the gateway), `{model}:embedContent` and `{model}:batchEmbedContents` (embedding models); other methods answer 501',
    auth: 'contentKey',
    body: contentRequestSchema,
    streams: true,
  },
];

/** The native protocol surfaces: the spec's prefixes and the older unprefixed routes, which stay. */
export const nativeRoutes: RouteDoc[] = [
  ...messages('/native-messages/v1', false),
  ...messages('/v1', true),
  ...content('/native-content/v1beta', false),
  ...content('/v1beta', true),
];
