import { vi } from 'vitest';
import { runCli } from '../../shared/cli/run.js';
import type { CliResult } from './processes.js';

/**
 * One operator command run by the function bin/cli.js runs, in this process (several times faster
 * than a node start), its stdout and stderr captured.
 */
export async function cliInProcess(args: string[], env: Record<string, string>): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    return { code: await runCli(args, env), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
