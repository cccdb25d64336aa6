import { connect, type Socket } from 'node:net';

/** One command as Redis's MONITOR reports it. */
export interface MonitoredCommand {
  /** `lua` for a command a script ran, else the client's address. */
  source: string;
  args: string[];
}

/**
 * MONITOR on a raw connection of its own (a client library in monitor mode can mistake a late
 * line for a reply when it is closed mid-stream). Lines are parsed as they come; `stop` closes it.
 */
export async function monitorRedis(
  url: string,
  onCommand: (command: MonitoredCommand) => void,
): Promise<{ stop(): void }> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port || 6379), hostname || '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let buffer = '';
  let ready!: () => void;
  const started = new Promise<void>((resolve) => (ready = resolve));
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    let end: number;
    while ((end = buffer.indexOf('\r\n')) !== -1) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (line === '+OK') ready();
      else if (line.startsWith('+')) {
        const source = /\[\d+ ([^\]]+)\]/.exec(line)?.[1] ?? '';
        const args = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(["\\])/g, '$1'));
        onCommand({ source, args });
      }
    }
  });
  socket.on('error', () => {});
  socket.write('MONITOR\r\n');
  await started;
  return { stop: () => socket.destroy() };
}
