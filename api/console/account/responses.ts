import { z } from 'zod';
import { whole } from '../../openapi/response-fields.js';
import { dataEnvelope } from '../envelope.js';

export const ACCOUNT_RESPONSES = {
  /** Content logging on: the account's calls keep their prompt and completion for dataset exports. */
  settings: dataEnvelope(z.strictObject({ log_content: z.boolean() })),
  /** How many cached answers of the account were dropped. */
  cachePurged: dataEnvelope(z.strictObject({ purged: whole })),
};
