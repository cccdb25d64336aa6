import { exportRequestSchema } from '../../../shared/datasets/filters.js';
import { reportQuerySchema } from '../../../shared/usage/report-query.js';
import { purgeCache } from '../account/cache.js';
import { accountSettingsSchema, getAccountSettings, patchAccountSettings } from '../account/settings.js';
import { createExport, getExport, listExports } from '../datasets/exports.js';
import { pageQuerySchema } from '../envelope.js';
import { consoleLedger, consoleLogsQuerySchema, consoleUsageLogs, consoleUsageReport } from '../usage/console-usage.js';
import type { Route } from '../../routes/route.js';
import {
  ACCOUNT_SETTINGS_RESPONSE,
  CACHE_PURGED_RESPONSE,
  EXPORTS_RESPONSE,
  EXPORT_QUEUED_RESPONSE,
  EXPORT_RESPONSE,
  LEDGER_RESPONSE,
  ACCOUNT_SETTINGS_EXAMPLES,
  CONSOLE_USAGE_LOGS_RESPONSE,
  CONSOLE_USAGE_REPORT_RESPONSE,
} from '../../routes/examples/console-account.js';
import { ACCOUNT_RESPONSES } from '../account/responses.js';
import { DATASET_RESPONSES } from '../datasets/responses.js';
import { CONSOLE_USAGE_RESPONSES } from '../usage/responses.js';

/** Usage, the ledger, account settings and dataset exports. */
export const accountRoutes: Route[] = [
  {
    method: 'get',
    path: '/api/v1/usage/report',
    tag: 'Console: usage',
    summary: "The signed-in owner's usage report (as /v1/usage/report)",
    auth: 'session',
    response: CONSOLE_USAGE_RESPONSES.report,
    query: reportQuerySchema,
    examples: { response: CONSOLE_USAGE_REPORT_RESPONSE },
    handler: consoleUsageReport,
  },
  {
    method: 'get',
    path: '/api/v1/usage/logs',
    tag: 'Console: usage',
    summary: "The signed-in owner's request records, with /v1/usage/logs's filters (paginated envelope)",
    auth: 'session',
    response: CONSOLE_USAGE_RESPONSES.logs,
    query: consoleLogsQuerySchema,
    examples: { response: CONSOLE_USAGE_LOGS_RESPONSE },
    handler: consoleUsageLogs,
  },
  {
    method: 'get',
    path: '/api/v1/ledger',
    tag: 'Console: usage',
    summary: "The account's ledger, newest first (paginated envelope)",
    auth: 'session',
    response: CONSOLE_USAGE_RESPONSES.ledger,
    query: pageQuerySchema,
    examples: { response: LEDGER_RESPONSE },
    handler: consoleLedger,
  },
  {
    method: 'delete',
    path: '/api/v1/cache',
    tag: 'Console: account',
    summary: "Purge the account's response cache: every cached answer of every key (`{purged}`: how many)",
    auth: 'session',
    response: ACCOUNT_RESPONSES.cachePurged,
    examples: { response: CACHE_PURGED_RESPONSE },
    handler: purgeCache,
  },
  {
    method: 'get',
    path: '/api/v1/account/settings',
    tag: 'Console: account',
    summary: 'Account settings (`log_content`)',
    auth: 'session',
    response: ACCOUNT_RESPONSES.settings,
    examples: { response: ACCOUNT_SETTINGS_RESPONSE },
    handler: getAccountSettings,
  },
  {
    method: 'patch',
    path: '/api/v1/account/settings',
    tag: 'Console: account',
    summary: 'Turn content logging on or off (prompts and completions kept in object storage for dataset exports)',
    auth: 'session',
    response: ACCOUNT_RESPONSES.settings,
    body: accountSettingsSchema,
    examples: ACCOUNT_SETTINGS_EXAMPLES,
    handler: patchAccountSettings,
  },
  {
    method: 'get',
    path: '/api/v1/datasets/exports',
    tag: 'Console: usage',
    summary: "The account's dataset exports (paginated envelope)",
    auth: 'session',
    response: DATASET_RESPONSES.page,
    query: pageQuerySchema,
    examples: { response: EXPORTS_RESPONSE },
    handler: listExports,
  },
  {
    method: 'post',
    path: '/api/v1/datasets/exports',
    tag: 'Console: usage',
    summary: 'Export usage records with their scores (and content, when logged) as JSONL',
    auth: 'session',
    response: DATASET_RESPONSES.one,
    body: exportRequestSchema,
    responses: { 202: 'the export, queued' },
    examples: { response: EXPORT_QUEUED_RESPONSE },
    handler: createExport,
  },
  {
    method: 'get',
    path: '/api/v1/datasets/exports/:id',
    tag: 'Console: usage',
    summary: 'An export: its status and, once written, a short-lived download link',
    auth: 'session',
    response: DATASET_RESPONSES.one,
    examples: { response: EXPORT_RESPONSE },
    handler: getExport,
  },
];
