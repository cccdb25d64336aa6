import { SIGNED_LINK, UNIX } from './common.js';

/**
 * Request and response examples of the text surfaces (chat completions, Responses, Messages,
 * generateContent), embeddings and JSON images, as the gateway answers them: an upstream of the
 * same protocol is passed through, so these are each protocol's own objects
 * (test/openapi/api-examples.test.ts holds them to the real answers).
 */

const chatRequest = {
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'Answer in one sentence.' },
    { role: 'user', content: 'What is a model gateway?' },
  ],
  max_tokens: 64,
};

/** A chat completion, also the `result` of a private-protocol chat call. */
export const CHAT_COMPLETION = {
  id: 'chatcmpl-7f3a9c2e4b1d4e8f',
  object: 'chat.completion',
  created: UNIX,
  model: 'gpt-4o-mini',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'A single API in front of many model providers.', refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: {
    prompt_tokens: 24,
    completion_tokens: 11,
    total_tokens: 35,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  },
  system_fingerprint: 'fp_44709d6fcb',
};

export const CHAT_EXAMPLES = { request: chatRequest, response: CHAT_COMPLETION };

export const RESPONSES_EXAMPLES = {
  request: { model: 'gpt-4o-mini', input: 'Say hello.', max_output_tokens: 64 },
  response: {
    id: 'resp_67ccd2bed1ec8190b14f964abc054267',
    object: 'response',
    created_at: UNIX,
    status: 'completed',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: 64,
    model: 'gpt-4o-mini',
    output: [
      {
        type: 'message',
        id: 'msg_67ccd2bf17f0819081ff3bb2cf6508e6',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hello!', annotations: [], logprobs: [] }],
      },
    ],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: null,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    truncation: 'disabled',
    usage: {
      input_tokens: 9,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 12,
    },
    metadata: {},
  },
};

/** A Messages answer, also each succeeded line of a Message Batch's results. */
export const MESSAGE = {
  id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet',
  content: [{ type: 'text', text: 'Hello!' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 3 },
};

export const MESSAGES_EXAMPLES = {
  request: { model: 'claude-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello.' }] },
  response: MESSAGE,
};

export const COUNT_TOKENS_EXAMPLES = {
  request: { model: 'claude-sonnet', messages: [{ role: 'user', content: 'Say hello.' }] },
  response: { input_tokens: 10 },
};

const contents = [{ role: 'user', parts: [{ text: 'Say hello.' }] }];

export const GENERATE_CONTENT_EXAMPLES = {
  request: { contents, generationConfig: { maxOutputTokens: 64 } },
  response: {
    candidates: [{ content: { role: 'model', parts: [{ text: 'Hello!' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
    modelVersion: 'gemini-flash',
    responseId: 'mMnTaPLvKfTU-8YPn6bk2Qs',
  },
};

/** `?alt=sse`: one event per chunk; the last carries `finishReason` and `usageMetadata`. */
const chunk = (text: string, end?: object) =>
  `data: ${JSON.stringify({
    candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...end }],
    ...(end && { usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 } }),
    modelVersion: 'gemini-flash',
    responseId: 'mMnTaPLvKfTU-8YPn6bk2Qs',
  })}\n\n`;

export const STREAM_GENERATE_CONTENT_EXAMPLES = {
  request: GENERATE_CONTENT_EXAMPLES.request,
  response: chunk('Hel') + chunk('lo!') + chunk('', { finishReason: 'STOP' }),
};

export const CONTENT_COUNT_TOKENS_EXAMPLES = { request: { contents }, response: { totalTokens: 3 } };

export const EMBEDDINGS_EXAMPLES = {
  request: { model: 'text-embedding-3-small', input: ['first text', 'second text'] },
  response: {
    object: 'list',
    data: [
      { object: 'embedding', index: 0, embedding: [0.0123, -0.0456, 0.0789] },
      { object: 'embedding', index: 1, embedding: [0.0321, -0.0654, 0.0987] },
    ],
    model: 'text-embedding-3-small',
    usage: { prompt_tokens: 4, total_tokens: 4 },
  },
};

export const EMBED_CONTENT_EXAMPLES = {
  request: { content: { parts: [{ text: 'The quick brown fox' }] } },
  response: { embedding: { values: [0.0123, -0.0456, 0.0789] } },
};

export const BATCH_EMBED_CONTENTS_EXAMPLES = {
  request: {
    requests: [
      { model: 'models/text-embedding', content: { parts: [{ text: 'first text' }] } },
      { model: 'models/text-embedding', content: { parts: [{ text: 'second text' }] } },
    ],
  },
  response: { embeddings: [{ values: [0.0123, -0.0456, 0.0789] }, { values: [0.0321, -0.0654, 0.0987] }] },
};

const imagesAnswer = (revised_prompt: string) => ({ created: UNIX, data: [{ url: SIGNED_LINK, revised_prompt }] });

export const IMAGE_GENERATION_EXAMPLES = {
  request: { model: 'image-sim', prompt: 'A lighthouse at dawn, watercolour', n: 1, size: '1024x1024' },
  response: imagesAnswer('A lighthouse at dawn, watercolour'),
};

export const IMAGE_EDIT_EXAMPLES = {
  request: {
    model: 'image-sim',
    prompt: 'Add a small boat',
    images: [{ image_url: 'asset://asset_Df33drcuvQK3aoUMvjQV' }],
    size: '1024x1024',
  },
  response: imagesAnswer('Add a small boat'),
};
