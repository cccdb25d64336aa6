import type { ApiKeyRow } from '../db/schema.js';
import type { JobQueues } from '../jobs/queues.js';

export const KEY_CREATED_SUBJECT = 'A new API key was created on your account';

/**
 * Mails the owner that a key was created (the `mail` job), so a key made by someone inside their
 * session, or by the operator, does not go unnoticed. The job id is the key's: a retried call
 * never mails twice. The notice names the key, never its secret.
 */
export async function mailKeyCreated(
  jobs: JobQueues,
  owner: { email: string },
  key: ApiKeyRow,
  origin: { ip: string } | 'operator',
): Promise<void> {
  // ASCII and short lines: the mail goes out 7-bit, readable as sent.
  const text = [
    'A new API key was created on your account.',
    '',
    `  name:    ${key.name || '(none)'}`,
    `  key:     ${key.prefix}...${key.last4}`,
    `  group:   ${key.group_id}`,
    `  created: ${key.created_at.toISOString()}`,
    `  by:      ${origin === 'operator' ? 'the operator of this service' : `the console, from IP address ${origin.ip}`}`,
    '',
    'If you did not expect it, revoke the key in the console,',
    'change your password and sign out your other sessions.',
  ].join('\n');
  await jobs.enqueue(
    'mail',
    { to: owner.email, subject: KEY_CREATED_SUBJECT, text },
    { jobId: `mail-key-created-${key.id}` },
  );
}
