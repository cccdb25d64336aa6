import type { Db } from '../db/index.js';
import { endpointsAwaitingNotice, markOwnerNotified } from '../db/webhook-endpoints.js';
import type { JobQueues } from '../jobs/queues.js';

export const ENDPOINT_DISABLED_SUBJECT = 'A webhook endpoint of your account was disabled';

/**
 * Mails the owner of every endpoint disabled for failing who has not been told yet. Run right after
 * a disabling commits, and by the maintenance sweep (so a mail lost between the commit and the
 * queue still goes out); the job id is the endpoint's and its disabling time, so it is mailed once.
 */
export async function mailDisabledEndpointOwners(db: Db, jobs: JobQueues, now: Date): Promise<number> {
  const endpoints = await endpointsAwaitingNotice(db, 100);
  for (const e of endpoints) {
    // ASCII and short lines: the mail goes out 7-bit, readable as sent.
    const text = [
      'A webhook endpoint of your account was disabled: every delivery to it failed for 3 days.',
      '',
      `  endpoint:      ${e.id}`,
      `  url:           ${e.url}`,
      `  failing since: ${e.failing_since?.toISOString() ?? 'unknown'}`,
      `  disabled:      ${e.disabled_at?.toISOString() ?? now.toISOString()}`,
      '',
      'Events are not sent to it while it is disabled. Once the receiver answers',
      'again, enable the endpoint in the console and redeliver what it missed.',
    ].join('\n');
    await jobs.enqueue(
      'mail',
      { to: e.email, subject: ENDPOINT_DISABLED_SUBJECT, text },
      { jobId: `mail-webhook-disabled-${e.id}-${e.disabled_at?.getTime() ?? 0}` },
    );
    await markOwnerNotified(db, e.id, now);
  }
  return endpoints.length;
}
