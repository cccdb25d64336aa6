import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string;
  data: string;
}

export interface TestSmtp {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  inbox: ReceivedMail[];
  /** Refuse the next `n` messages with a temporary failure (451). */
  refuseNext(n: number): void;
  refusalsLeft(): number;
  close(): Promise<void>;
}

/** A real SMTP server on loopback (smtp-server) that keeps every message it accepts. */
export async function startSmtp(): Promise<TestSmtp> {
  const inbox: ReceivedMail[] = [];
  let refuse = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let data = '';
      stream.on('data', (c: Buffer) => (data += c.toString()));
      stream.on('end', () => {
        if (refuse > 0) {
          refuse--;
          return callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
        }
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        for (const r of session.envelope.rcptTo) inbox.push({ from, to: r.address, data });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    inbox,
    refuseNext: (n) => (refuse = n),
    refusalsLeft: () => refuse,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
