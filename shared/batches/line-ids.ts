import { createHash } from 'node:crypto';

/**
 * The request id of a line's call — its usage record and its one charge — fixed by the batch and
 * the line's custom_id, so a line run again after a crash is charged once.
 */
export function lineRequestId(batchId: string, customId: string): string {
  const digest = createHash('sha256').update(batchId).update('\0').update(customId).digest('base64url');
  return `batch_req_${digest.slice(0, 32)}`;
}
