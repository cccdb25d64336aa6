// CLI: starts the simulator and prints {"url": ...} so a parent process can read where it listens.
import { parseArgs } from 'node:util';
import { startUpstreamSim } from './index.js';

const DEFAULT_PORT = 4010;

function portFrom(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`invalid port: ${value}`);
  return port;
}

const { values } = parseArgs({
  options: { port: { type: 'string' }, host: { type: 'string' } },
  strict: true,
});

const sim = await startUpstreamSim({
  port: portFrom(values.port ?? process.env.SIM_PORT),
  host: values.host ?? process.env.SIM_HOST ?? '127.0.0.1',
  apiKey: process.env.SIM_API_KEY || undefined,
});
process.stdout.write(`${JSON.stringify({ url: sim.url })}\n`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
