import { AT, LATER, one, page, SIGNED_LINK } from './common.js';
import { LOG_RECORD, USAGE_REPORT } from './usage.js';

/** The console's usage, ledger, account settings, response cache and dataset exports. */

export const CONSOLE_USAGE_REPORT_RESPONSE = one(USAGE_REPORT, 'req_2c4e70');
export const CONSOLE_USAGE_LOGS_RESPONSE = page(
  { ...LOG_RECORD, scores: [{ name: 'helpfulness', value: 0.9, comment: 'clear answer' }] },
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
    created_at: AT,
  },
  'req_2c4e72',
);
export const CACHE_PURGED_RESPONSE = one({ purged: 12 }, 'req_2c4e7a');
export const ACCOUNT_SETTINGS_RESPONSE = one({ log_content: false }, 'req_2c4e73');
export const ACCOUNT_SETTINGS_EXAMPLES = {
  request: { log_content: true },
  response: one({ log_content: true }, 'req_2c4e6a'),
};

const datasetExport = {
  id: '7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a',
  status: 'succeeded',
  filters: { start: '2026-01-01T00:00:00Z', end: '2026-02-01T00:00:00Z', model: 'gpt-4o-mini' },
  records: 1280,
  error: null,
  created_at: AT,
  finished_at: '2026-01-31T12:00:09.000Z',
  download: { url: SIGNED_LINK, expires_at: LATER },
};
export const EXPORT_QUEUED_RESPONSE = one(
  { ...datasetExport, status: 'queued', records: null, finished_at: null, download: null },
  'req_2c4e74',
);
export const EXPORTS_RESPONSE = page(datasetExport, 'req_2c4e75');
export const EXPORT_RESPONSE = one(datasetExport, 'req_2c4e76');
