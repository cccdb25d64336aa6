/**
 * Response examples of the console API's routes, shown in the reference beside
 * api/routes/examples.ts: the success envelope `{data, request_id}` or the paginated
 * `{list, total, page, page_size, request_id}` (test/openapi/console-examples.test.ts holds them
 * to the routes' real answers).
 */
import { CONSOLE_OBJECTS } from './examples.js';

const { key, user, endpoint, preset, template } = CONSOLE_OBJECTS;
const at = '2026-01-31T12:00:00.000Z';
const later = '2026-01-31T12:15:00.000Z';

const one = (data: unknown, request_id: string) => ({ data, request_id });
const page = (item: unknown, request_id: string) => ({ list: [item], total: 1, page: 1, page_size: 20, request_id });

export const SESSION_TOKEN_RESPONSE = one(
  { token: 'gwb_…a signed token for this session…', expires_at: later },
  'req_4b8c1e',
);

export const ME_RESPONSE = one(user, 'req_4b8c20');
export const MFA_STATUS_RESPONSE = one({ enabled: false }, 'req_4b8c21');
export const TWO_FACTOR_RESPONSE = one({ enabled: true }, 'req_4b8c22');
export const LOGOUT_RESPONSE = one(null, 'req_4b8c23');
export const SESSIONS_RESPONSE = one(
  [
    {
      id: '3c1d5e7f-9a2b-4c4d-8e6f-7a8b9c0d1e2f',
      current: true,
      created_at: at,
      expires_at: '2026-02-07T12:00:00.000Z',
      ip: '203.0.113.7',
      user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0',
    },
  ],
  'req_4b8c24',
);

const passkey = {
  id: '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b',
  name: 'Laptop',
  transports: ['internal', 'hybrid'],
  created_at: at,
  last_used_at: null,
};
export const PASSKEYS_RESPONSE = one([passkey], 'req_4b8c25');
export const PASSKEY_REGISTERED_RESPONSE = one(passkey, 'req_4b8c26');
export const PASSKEY_REGISTER_OPTIONS_RESPONSE = one(
  {
    ceremony_id: 'wzHCeBHhZvGg0QHE_BY9vMz-jmi3ySE_',
    expires_at: '2026-01-31T12:05:00.000Z',
    options: {
      rp: { name: 'Model gateway', id: 'console.example.com' },
      user: { id: 'dXNlci1pZA', name: 'owner@example.com', displayName: 'Ada' },
      challenge: 'USRAOA3ZdZwIE_wZEHpDBg-m3OM3vSffZi_vWaJmdBA',
      pubKeyCredParams: [
        { alg: -8, type: 'public-key' },
        { alg: -7, type: 'public-key' },
        { alg: -257, type: 'public-key' },
      ],
      timeout: 300000,
      attestation: 'none',
      excludeCredentials: [],
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    },
  },
  'req_4b8c27',
);
export const PASSKEY_LOGIN_OPTIONS_RESPONSE = one(
  {
    ceremony_id: 'wzHCeBHhZvGg0QHE_BY9vMz-jmi3ySE_',
    expires_at: '2026-01-31T12:05:00.000Z',
    options: {
      rpId: 'console.example.com',
      challenge: 'USRAOA3ZdZwIE_wZEHpDBg-m3OM3vSffZi_vWaJmdBA',
      timeout: 300000,
      userVerification: 'required',
    },
  },
  'req_4b8c28',
);

export const PROVIDERS_RESPONSE = one([{ name: 'google', display_name: 'Google' }], 'req_4b8c29');
export const PROVIDER_RETURN_RESPONSE = one({ provider: 'google', result: 'signed_in' }, 'req_4b8c2a');
export const PROVIDER_LINK_RESPONSE = one(
  {
    url: 'https://accounts.example.com/authorize?client_id=…&state=…&code_challenge=…',
    expires_at: '2026-01-31T12:10:00.000Z',
  },
  'req_4b8c2b',
);
export const IDENTITIES_RESPONSE = one(
  [{ provider: 'google', email: 'owner@example.com', linked_at: at }],
  'req_4b8c2c',
);

export const KEYS_RESPONSE = page(key, 'req_8c1f30');
export const KEY_RESPONSE = one(key, 'req_8c1f31');
export const KEY_REVOKED_RESPONSE = one({ ...key, status: 'revoked' }, 'req_8c1f32');
export const KEY_GROUPS_RESPONSE = one(
  [
    { id: 'default', models: '*', discount_percent: 0, rpm_limit: null, tpm_limit: null, concurrency_limit: null },
    {
      id: 'team',
      models: ['claude-haiku', 'gpt-4o-mini'],
      discount_percent: 10,
      rpm_limit: 600,
      tpm_limit: null,
      concurrency_limit: 8,
    },
  ],
  'req_8c1f33',
);

const counters = {
  requests: 42,
  errors: 1,
  input_tokens: 12840,
  output_tokens: 3310,
  cached_tokens: 2048,
  charged_micro_usd: 18_250,
  cache_hits: 0,
};
export const USAGE_REPORT_RESPONSE = one(
  {
    group_by: 'model',
    start: '2026-01-01T00:00:00.000Z',
    end: '2026-02-01T00:00:00.000Z',
    rows: [{ group: 'gpt-4o-mini', ...counters }],
    total: counters,
  },
  'req_2c4e70',
);
export const USAGE_LOGS_RESPONSE = page(
  {
    request_id: 'req_9f8e7d6c5b4a',
    model: 'gpt-4o-mini',
    endpoint: 'chat/completions',
    status_code: 200,
    error_code: null,
    stream: false,
    input_tokens: 24,
    output_tokens: 11,
    cached_tokens: 0,
    charged_micro_usd: 12,
    tags: ['web'],
    latency_ms: 640,
    ttft_ms: 640,
    session_id: null,
    api_key_id: key.id,
    key_prefix: key.prefix,
    upstream_account: 'openai/main',
    template_version_id: null,
    cache_hit: false,
    created_at: at,
    scores: [{ name: 'helpfulness', value: 0.9, comment: 'clear answer' }],
  },
  'req_2c4e71',
);
export const LEDGER_RESPONSE = page(
  {
    id: '2',
    kind: 'charge',
    amount_micro_usd: -12,
    balance_after_micro_usd: 4_999_988,
    request_id: 'req_9f8e7d6c5b4a',
    note: null,
    created_at: at,
  },
  'req_2c4e72',
);
export const CACHE_PURGED_RESPONSE = one({ purged: 12 }, 'req_2c4e7a');
export const ACCOUNT_SETTINGS_RESPONSE = one({ log_content: false }, 'req_2c4e73');

const datasetExport = {
  id: '7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a',
  status: 'succeeded',
  filters: { start: '2026-01-01T00:00:00Z', end: '2026-02-01T00:00:00Z', model: 'gpt-4o-mini' },
  records: 1280,
  error: null,
  created_at: at,
  finished_at: '2026-01-31T12:00:09.000Z',
  download: { url: 'https://api.example.com/v1/files/eyJrIjoi….sig', expires_at: later },
};
export const EXPORT_QUEUED_RESPONSE = one(
  { ...datasetExport, status: 'queued', records: null, finished_at: null, download: null },
  'req_2c4e74',
);
export const EXPORTS_RESPONSE = page(datasetExport, 'req_2c4e75');
export const EXPORT_RESPONSE = one(datasetExport, 'req_2c4e76');

export const PRESETS_RESPONSE = page(preset, 'req_7a1b30');
export const PRESET_RESPONSE = one(preset, 'req_7a1b31');
export const TEMPLATES_RESPONSE = page(template, 'req_7a1b32');
export const TEMPLATE_RESPONSE = one(template, 'req_7a1b33');

export const WEBHOOKS_RESPONSE = page(endpoint, 'req_5d2a80');
export const WEBHOOK_RESPONSE = one(endpoint, 'req_5d2a81');
export const WEBHOOK_ROTATED_RESPONSE = one(
  {
    ...endpoint,
    previous_secret_expires_at: '2026-02-01T12:00:00.000Z',
    updated_at: at,
    secret: 'whsec_FJfA4dH3LzNLjRxnA16BiFk8i7X1BnDq',
  },
  'req_5d2a82',
);
const delivery = {
  id: 'whd_4CoqBJmoClWbMqNsYStsxEz2',
  object: 'webhook_delivery',
  endpoint_id: endpoint.id,
  event_id: 'evt_f4JecHuHSv8WYsjxLL0KuUdv',
  event_type: 'batch.completed',
  status: 'delivered',
  attempt_count: 1,
  next_attempt_at: null,
  last_error: null,
  delivered_at: '2026-01-31T12:00:01.000Z',
  created_at: at,
  attempts: [
    {
      attempted_at: '2026-01-31T12:00:01.000Z',
      status_code: 200,
      duration_ms: 84,
      response_excerpt: 'ok',
      error: null,
    },
  ],
};
export const DELIVERIES_RESPONSE = page(delivery, 'req_5d2a83');
/** A test event or a redelivery: the delivery, queued. */
export const DELIVERY_QUEUED_RESPONSE = one(
  {
    ...delivery,
    event_type: 'webhook.test',
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: at,
    delivered_at: null,
    attempts: [],
  },
  'req_5d2a84',
);

const asset = {
  id: 'asset_Df33drcuvQK3aoUMvjQV',
  object: 'asset',
  reference: 'asset://asset_Df33drcuvQK3aoUMvjQV',
  filename: 'diagram.png',
  content_type: 'image/png',
  size_bytes: 48_213,
  width: 800,
  height: 600,
  sha256: 'b157bbe4217f5db291324f6efd1182a5a562982adf64cd3eed3b5b8be3dfd284',
  created_at: at,
};
export const ASSET_UPLOAD_RESPONSE = one(
  {
    upload_id: 'up_7fJzTyUTiBuvCrjIKdsX',
    upload_url: 'https://api.example.com/v1/uploads/WyJ1cF83…sig',
    method: 'PUT',
    headers: { 'content-type': 'image/png' },
    expires_at: later,
  },
  'req_6e3b90',
);
export const ASSET_RESPONSE = one(asset, 'req_6e3b91');
export const ASSETS_RESPONSE = page(asset, 'req_6e3b92');
export const ASSET_CONTENT_RESPONSE = one(
  { url: 'https://api.example.com/v1/files/eyJrIjoi….sig', expires_at: later },
  'req_6e3b93',
);
