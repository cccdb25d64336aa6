import type { Job } from 'bullmq';
import type { GatewayServices } from '../shared/gateway/services.js';
import { createMailer, type Mail, type Mailer } from '../shared/mail/mailer.js';

// One mailer (one SMTP connection pool) per worker process's services.
const mailers = new WeakMap<GatewayServices, Mailer>();

export function mailerFor(s: GatewayServices): Mailer {
  let mailer = mailers.get(s);
  if (!mailer) mailers.set(s, (mailer = createMailer(s.config.mail, s.log)));
  return mailer;
}

export function closeMailer(s: GatewayServices): void {
  mailers.get(s)?.close();
  mailers.delete(s);
}

/** The `mail` job: one message; a refusal from the SMTP server fails the attempt and BullMQ retries it (8 attempts, backing off). */
export async function sendMail(s: GatewayServices, job: Job<Mail>): Promise<string> {
  await mailerFor(s).send(job.data);
  return 'sent';
}
