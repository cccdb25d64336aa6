import { startTaskWorkers, type TaskWorkers } from '../../workers/task-workers.js';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../support/gateway.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';

/** A gateway whose mails go through the `mail` job to a real SMTP server on loopback. */
export interface SecurityGateway {
  gw: TestGateway;
  smtp: TestSmtp;
  /** The mails to one address from now on. */
  inbox(email: string): Inbox;
  close(): Promise<void>;
}

export async function startSecurityGateway(
  options: TestGatewayOptions & {
    /** The job queues its workers serve besides `mail` (comma separated), e.g. `dataset-export`. */
    moreQueues?: string;
  } = {},
): Promise<SecurityGateway> {
  const smtp = await startSmtp();
  const gw = await startTestGateway({ ...options, env: { SMTP_URL: smtp.url, ...options.env } });
  const workers: TaskWorkers = startTaskWorkers(gw.services, {
    queues: ['mail', ...(options.moreQueues ? [options.moreQueues] : [])].join(','),
    concurrency: '',
    maintenanceEveryMs: 60_000,
    staleAfterMs: 60_000,
    graceMs: 1_000,
  });
  return {
    gw,
    smtp,
    inbox: (email) => new Inbox(smtp, email),
    async close() {
      await workers.close();
      await gw.close();
      await smtp.close();
    },
  };
}

/** Reads the mails one address receives, in order, starting with the next one. */
export class Inbox {
  private seen: number;

  constructor(
    private readonly smtp: TestSmtp,
    readonly email: string,
  ) {
    this.seen = this.mails().length;
  }

  private mails() {
    return this.smtp.inbox.filter((m) => m.to.toLowerCase() === this.email.toLowerCase());
  }

  /** The next mail's raw text (waits for the mail job). */
  async next(timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mail = this.mails()[this.seen];
      if (mail) {
        this.seen++;
        return mail.data;
      }
      if (Date.now() > deadline) throw new Error(`no mail ${this.seen + 1} for ${this.email}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** The digits of the next mail's code. */
  async nextCode(): Promise<string> {
    const data = await this.next();
    // In the body only: a header (a Message-ID's UUID) can hold a run of eight digits too.
    const code = /\b(\d{8})\b/.exec(mailBody(data))?.[1];
    if (!code) throw new Error(`no code in the mail to ${this.email}: ${data}`);
    return code;
  }

  /** How many mails arrived that were not read yet. */
  unread(): number {
    return this.mails().length - this.seen;
  }
}

/** A code of the right shape that is not `code`. */
export const wrongCode = (code: string) => (code === '00000000' ? '00000001' : '00000000');

/** A raw message's body: what follows the first empty line. */
export function mailBody(raw: string): string {
  const end = raw.indexOf('\r\n\r\n');
  return end === -1 ? raw : raw.slice(end + 4);
}
