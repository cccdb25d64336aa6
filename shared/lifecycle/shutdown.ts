import type { Logger } from '../log.js';

export interface ShutdownPhase {
  name: string;
  run: () => Promise<unknown>;
  /** Past this the phase is abandoned and the next one starts. */
  timeoutMs: number;
}

/**
 * Runs the phases once, in order, on SIGTERM or SIGINT (stop accepting, finish in-flight work,
 * drain queues, close pools); a second signal exits at once.
 */
export function installShutdown(log: Logger, phases: ShutdownPhase[]): () => Promise<void> {
  let started: Promise<void> | undefined;
  const shutdown = () => {
    started ??= (async () => {
      for (const phase of phases) {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), phase.timeoutMs);
        });
        const result = await Promise.race([
          phase.run().then(
            () => 'done' as const,
            (err: unknown) => err,
          ),
          timeout,
        ]);
        clearTimeout(timer);
        if (result === 'timeout') log.warn({ phase: phase.name }, 'shutdown phase timed out');
        else if (result !== 'done') log.error({ err: result, phase: phase.name }, 'shutdown phase failed');
      }
    })();
    return started;
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (started) {
        log.warn('second signal: exiting now');
        process.exit(1);
      }
      log.info({ signal }, 'shutting down');
      void shutdown().then(() => process.exit(0));
    });
  }
  return shutdown;
}
