import type { ClientCodec, ProtocolCodec } from './canonical/codec.js';
import type { ChatProtocol, ClientProtocol } from './canonical/types.js';
import { responsesResponseFromCanonical, ResponsesStreamEncoder } from './responses/from-canonical.js';
import { responsesRequestToCanonical } from './responses/to-canonical.js';
import { messagesRequestFromCanonical, messagesResponseFromCanonical } from './anthropic/from-canonical.js';
import { MessagesStreamDecoder, MessagesStreamEncoder } from './anthropic/stream-codec.js';
import { messagesRequestToCanonical, messagesResponseToCanonical } from './anthropic/to-canonical.js';
import { contentRequestFromCanonical, contentResponseFromCanonical } from './gemini/from-canonical.js';
import { ContentStreamDecoder, ContentStreamEncoder } from './gemini/stream-codec.js';
import { contentRequestToCanonical, contentResponseToCanonical } from './gemini/to-canonical.js';
import { openAiRequestFromCanonical, openAiResponseFromCanonical } from './openai/from-canonical.js';
import { OpenAiStreamDecoder, OpenAiStreamEncoder } from './openai/stream-codec.js';
import { openAiRequestToCanonical, openAiResponseToCanonical } from './openai/to-canonical.js';

/** The translations of each text protocol, by protocol: every pair goes through the canonical form. */
export const CODECS: Readonly<Record<ChatProtocol, ProtocolCodec>> = {
  openai: {
    protocol: 'openai',
    requestToCanonical: openAiRequestToCanonical,
    requestFromCanonical: openAiRequestFromCanonical,
    responseToCanonical: openAiResponseToCanonical,
    responseFromCanonical: openAiResponseFromCanonical,
    streamDecoder: () => new OpenAiStreamDecoder(),
    streamEncoder: (options) => new OpenAiStreamEncoder(options),
  },
  anthropic: {
    protocol: 'anthropic',
    requestToCanonical: messagesRequestToCanonical,
    requestFromCanonical: messagesRequestFromCanonical,
    responseToCanonical: messagesResponseToCanonical,
    responseFromCanonical: messagesResponseFromCanonical,
    streamDecoder: () => new MessagesStreamDecoder(),
    streamEncoder: (options) => new MessagesStreamEncoder(options),
  },
  gemini: {
    protocol: 'gemini',
    requestToCanonical: (body, target) => contentRequestToCanonical(body, target),
    requestFromCanonical: contentRequestFromCanonical,
    responseToCanonical: contentResponseToCanonical,
    responseFromCanonical: contentResponseFromCanonical,
    streamDecoder: () => new ContentStreamDecoder(),
    streamEncoder: (options) => new ContentStreamEncoder(options),
  },
};

/** Every protocol a client may speak, with what its side of a call needs. */
export const CLIENT_CODECS: Readonly<Record<ClientProtocol, ClientCodec>> = {
  ...CODECS,
  responses: {
    protocol: 'responses',
    requestToCanonical: responsesRequestToCanonical,
    responseFromCanonical: responsesResponseFromCanonical,
    streamEncoder: (options) => new ResponsesStreamEncoder(options),
  },
};
