/**
 * Request and response examples of the main routes, shown in the reference (`examples` of a route
 * declaration). Where a route gives none, its request example is derived from its body's schema
 * (api/openapi/examples.ts); these read better than what a schema alone can say.
 */

const chatRequest = {
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'Answer in one sentence.' },
    { role: 'user', content: 'What is a model gateway?' },
  ],
  max_tokens: 64,
};

const chatResponse = {
  id: 'chatcmpl-7f3a9c2e4b1d4e8f',
  object: 'chat.completion',
  created: 1767225600,
  model: 'gpt-4o-mini',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'A single API in front of many model providers.' },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 24, completion_tokens: 11, total_tokens: 35 },
};

export const CHAT_EXAMPLES = { request: chatRequest, response: chatResponse };

export const MESSAGES_EXAMPLES = {
  request: { model: 'claude-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello.' }] },
  response: {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet',
    content: [{ type: 'text', text: 'Hello!' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 3 },
  },
};

export const GENERATE_CONTENT_EXAMPLES = {
  request: { contents: [{ role: 'user', parts: [{ text: 'Say hello.' }] }], generationConfig: { maxOutputTokens: 64 } },
  response: {
    candidates: [{ content: { role: 'model', parts: [{ text: 'Hello!' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
    modelVersion: 'gemini-flash',
  },
};

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

const key = {
  id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  name: 'production',
  prefix: 'sk-Ab3d',
  last4: 'x9Qz',
  status: 'active',
  expires_at: null,
  created_at: '2026-01-31T12:00:00.000Z',
  group: 'default',
  ip_allowlist: [],
  asset_access: 'own',
  compatibility_profile: 'standard_v1',
  rpm_limit: 600,
  tpm_limit: null,
  concurrency_limit: null,
  total_micro_usd: null,
  daily_micro_usd: 2_500_000,
  monthly_micro_usd: null,
  tags: ['web'],
  usage_access: false,
  default_preset: null,
  budget: null,
  cache_ttl_seconds: null,
};

export const KEY_CREATE_EXAMPLES = {
  request: { name: 'production', rpm_limit: 600, daily_micro_usd: 2_500_000, tags: ['web'] },
  response: { data: { ...key, key: 'sk-Ab3d…the full secret, shown only here…x9Qz' }, request_id: 'req_8c1f2e' },
};

export const KEY_UPDATE_EXAMPLES = {
  request: { status: 'disabled' },
  response: { data: { ...key, status: 'disabled' }, request_id: 'req_8c1f2f' },
};

const endpoint = {
  id: 'wh_3kTMd9Qw1xYz7aBcD4eFgH2i',
  object: 'webhook_endpoint',
  url: 'https://hooks.example.com/gateway',
  events: ['video.completed', 'batch.completed'],
  description: 'production receiver',
  enabled: true,
  disabled_reason: null,
  failing_since: null,
  previous_secret_expires_at: null,
  created_at: '2026-01-31T12:00:00.000Z',
  updated_at: '2026-01-31T12:00:00.000Z',
};

export const WEBHOOK_CREATE_EXAMPLES = {
  request: {
    url: 'https://hooks.example.com/gateway',
    events: ['video.completed', 'batch.completed'],
    description: 'production receiver',
  },
  response: { data: { ...endpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }, request_id: 'req_5d2a7b' },
};

export const RESPONSES_EXAMPLES = {
  request: { model: 'gpt-4o-mini', input: 'Say hello.', max_output_tokens: 64 },
  response: {
    id: 'resp_67ccd2bed1ec8190b14f964abc054267',
    object: 'response',
    created_at: 1767225600,
    status: 'completed',
    model: 'gpt-4o-mini',
    output: [
      {
        type: 'message',
        id: 'msg_67ccd2bf17f0819081ff3bb2cf6508e6',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hello!', annotations: [] }],
      },
    ],
    usage: { input_tokens: 9, output_tokens: 3, total_tokens: 12 },
  },
};

export const IMAGE_GENERATION_EXAMPLES = {
  request: { model: 'image-sim', prompt: 'A lighthouse at dawn, watercolour', n: 1, size: '1024x1024' },
  response: { created: 1767225600, data: [{ url: 'https://api.example.com/v1/files/img_4Kq9…/content?sig=…' }] },
};

export const COUNT_TOKENS_EXAMPLES = {
  request: { model: 'claude-sonnet', messages: [{ role: 'user', content: 'Say hello.' }] },
  response: { input_tokens: 10 },
};

const contents = [{ role: 'user', parts: [{ text: 'Say hello.' }] }];

export const CONTENT_COUNT_TOKENS_EXAMPLES = { request: { contents }, response: { totalTokens: 3 } };

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

export const PRIVATE_CALL_EXAMPLES = {
  request: {
    apiKey: 'ak-your-private-protocol-key',
    clientRequestId: 'order-1042',
    model: 'gpt-4o-mini',
    input: { messages: [{ role: 'user', content: 'Say hello.' }] },
  },
  // A chat call's `result` is the chat completion itself (docs/reference/private-protocol.md).
  response: {
    code: 0,
    message: 'success',
    data: { task_id: 'pcall_2b7e9c41', client_request_id: 'order-1042', status: 'succeeded', result: chatResponse },
  },
};

export const WEBHOOK_UPDATE_EXAMPLES = {
  request: { events: ['batch.completed'], enabled: false },
  response: {
    data: { ...endpoint, events: ['batch.completed'], enabled: false, disabled_reason: 'owner' },
    request_id: 'req_5d2a7c',
  },
};

// The console API's success envelope: `{data, request_id}` (docs/reference/console-api.md).
const user = {
  id: '6f1e2d3c-4b5a-4978-8c6d-5e4f3a2b1c0d',
  email: 'owner@example.com',
  nickname: 'Ada',
  locale: 'en-US',
  region: 'DE',
  has_password: true,
  created_at: '2026-01-31T12:00:00.000Z',
};
const session = {
  token: 'gws_…the session token (also set as the HttpOnly cookie)…',
  expires_at: '2026-03-02T12:00:00.000Z',
  user,
};
const codeSent = { data: { expires_at: '2026-01-31T12:10:00.000Z', cooldown_seconds: 60 }, request_id: 'req_3f9a1c' };

/** Routes that answer a session: sign-in, its second step, and the confirmed sign-up. */
export const SESSION_RESPONSE = { data: session, request_id: 'req_3f9a1d' };
/** Routes that e-mail a code: sign-up, password reset, a sensitive action's code. */
export const CODE_SENT_RESPONSE = codeSent;
export const PROFILE_EXAMPLES = {
  request: { nickname: 'Ada', locale: 'en-US', region: 'DE' },
  response: { data: user, request_id: 'req_3f9a1e' },
};

const preset = {
  slug: 'cheap-first',
  model: '@preset/cheap-first',
  models: ['gpt-4o-mini', 'claude-haiku'],
  strategy: 'weighted',
  weights: [3, 1],
  cache_ttl_seconds: null,
  preferred_providers: null,
  created_at: '2026-01-31T12:00:00.000Z',
  updated_at: '2026-01-31T12:00:00.000Z',
};

export const PRESET_CREATE_EXAMPLES = {
  request: { slug: 'cheap-first', models: ['gpt-4o-mini', 'claude-haiku'], strategy: 'weighted', weights: [3, 1] },
  response: { data: preset, request_id: 'req_7a1b2c' },
};

export const PRESET_UPDATE_EXAMPLES = {
  request: { strategy: 'ordered', weights: null },
  response: { data: { ...preset, strategy: 'ordered', weights: null }, request_id: 'req_7a1b2d' },
};

const template = {
  id: '9b2d4f6a-1c3e-4a5b-8d7f-0e1a2b3c4d5e',
  name: 'tone',
  versions: [
    {
      id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
      label: 'pirate',
      text: 'Answer as {{persona|a pirate}}.',
      weight: 1,
      variables: ['persona'],
      defaults: { persona: 'a pirate' },
    },
  ],
  key_ids: ['0f8fad5b-d9cb-469f-a165-70867728950e'],
  created_at: '2026-01-31T12:00:00.000Z',
  updated_at: '2026-01-31T12:00:00.000Z',
};

export const TEMPLATE_CREATE_EXAMPLES = {
  request: {
    name: 'tone',
    versions: [{ label: 'pirate', text: 'Answer as {{persona|a pirate}}.', weight: 1 }],
    key_ids: ['0f8fad5b-d9cb-469f-a165-70867728950e'],
  },
  response: { data: template, request_id: 'req_7a1b2e' },
};

export const TEMPLATE_UPDATE_EXAMPLES = {
  request: { key_ids: [] },
  response: { data: { ...template, key_ids: [] }, request_id: 'req_7a1b2f' },
};

export const ACCOUNT_SETTINGS_EXAMPLES = {
  request: { log_content: true },
  response: { data: { log_content: true }, request_id: 'req_2c4e6a' },
};

/** getResult and cancel answer the call's `data`, as `call` does. */
export const PRIVATE_LOOKUP_EXAMPLES = {
  request: { apiKey: 'ak-your-private-protocol-key', clientRequestId: 'order-1042' },
  response: PRIVATE_CALL_EXAMPLES.response,
};

/** The console objects the examples above show, for the console routes' other examples (console-examples.ts). */
export const CONSOLE_OBJECTS = { key, user, endpoint, preset, template };
