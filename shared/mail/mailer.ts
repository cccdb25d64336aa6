import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';
import { randomBase62 } from '../ids.js';
import type { Logger } from '../log.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/**
 * Sends mail through SMTP (`SMTP_URL`, with nodemailer), or — with no SMTP configured, as in
 * development — writes each mail as a `.eml`-like text file to `<DATA_DIR>/outbox` and logs where.
 * Used by the `mail` job, never on a request's path.
 */
export function createMailer(config: Config['mail'], log: Logger): Mailer {
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport(config.smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({ from: config.from, to: mail.to, subject: mail.subject, text: mail.text });
      },
      close: () => transport.close(),
    };
  }
  return {
    async send(mail) {
      await mkdir(config.outboxDir, { recursive: true });
      const file = path.join(
        config.outboxDir,
        `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBase62(8)}.txt`,
      );
      await writeFile(file, `From: ${config.from}\nTo: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`, {
        mode: 0o600,
      });
      log.info({ file, to: mail.to }, 'no SMTP_URL: mail written to the outbox');
    },
    close: () => undefined,
  };
}
