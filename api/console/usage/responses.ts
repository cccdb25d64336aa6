import { z } from 'zod';
import { timestamp, whole } from '../../openapi/response-fields.js';
import { logRecordAnswer, score, usageReportAnswer } from '../../usage/responses.js';
import { dataEnvelope, pageEnvelope } from '../envelope.js';

const ledgerEntry = z.strictObject({
  id: z.string(),
  kind: z.enum(['charge', 'credit', 'refund', 'adjustment']),
  /** Negative for a charge. */
  amount_micro_usd: whole,
  balance_after_micro_usd: whole,
  request_id: z.string().nullable(),
  note: z.string().nullable(),
  created_at: timestamp,
});

export const CONSOLE_USAGE_RESPONSES = {
  report: dataEnvelope(usageReportAnswer),
  /** Each record with the scores given to its request (POST /v1/scores), in name order. */
  logs: pageEnvelope(logRecordAnswer.extend({ scores: z.array(score) })),
  ledger: pageEnvelope(ledgerEntry),
};
