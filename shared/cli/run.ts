import { ConfigError, parseConfig } from '../config.js';
import { isGatewayError } from '../errors.js';
import { probeServices } from '../lifecycle/local/probe.js';
import { provideLocalServices, type LocalServices } from '../lifecycle/local/provide.js';
import { ServiceError } from '../lifecycle/local/service-error.js';
import { commands } from './commands.js';
import { CliContext } from './context.js';
import { parseFlags } from './flags.js';

function usage(): string {
  return `usage: gateway <command> [flags]\n${Object.values(commands)
    .map((c) => `  ${c.usage}`)
    .join('\n')}\n`;
}

/** Runs one operator command: one JSON object on stdout, or a clear error on stderr and exit code 1. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(name && name !== '--help' ? `unknown command '${name}'\n${usage()}` : usage());
    return name && name !== '--help' ? 2 : 0;
  }
  let ctx: CliContext | undefined;
  let local: LocalServices | undefined;
  try {
    // DATABASE_URL / REDIS_URL = embedded reach the servers `npm start` keeps under DATA_DIR.
    local = await provideLocalServices(env, { auto: false });
    const config = parseConfig(local.env);
    const failures = await probeServices(config, { redis: name !== 'migrate', storage: false });
    if (failures.length) {
      for (const line of failures) process.stderr.write(`error: ${line}\n`);
      return 1;
    }
    ctx = new CliContext(config);
    const result = await command.run(ctx, parseFlags(rest));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    const field = isGatewayError(err) && err.param ? ` (${err.param})` : '';
    const message =
      err instanceof ConfigError || err instanceof ServiceError || isGatewayError(err)
        ? `${err.message}${field}`
        : `${(err as Error).message ?? err}`;
    process.stderr.write(`error: ${message}\n`);
    return 1;
  } finally {
    await ctx?.close();
    await local?.stop();
  }
}
