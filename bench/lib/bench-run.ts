// One benchmark run's scratch directory and everything it started, stopped whatever happens: at the
// end, on a failure and on Ctrl-C. The children's logs are kept when the run did not succeed.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawnNode, type Child, type SpawnOptions } from './processes.js';

export class BenchRun {
  /** Every child process started through `spawn`, in order. */
  readonly children: Child[] = [];
  private readonly closers: (() => Promise<unknown>)[] = [];
  private ending = false;

  private constructor(
    /** Scratch space for the run (catalog files, logs); removed when the run succeeds. */
    readonly tmpDir: string,
    /** The children's stderr, one file each. */
    readonly logDir: string,
    private readonly log: (message: string) => void,
  ) {}

  static async start(name: string, log: (message: string) => void): Promise<BenchRun> {
    const tmpDir = await mkdtemp(path.join(os.tmpdir(), `${name}-`));
    const logDir = path.join(tmpDir, 'logs');
    await mkdir(logDir);
    log(`logs in ${logDir}`);
    const run = new BenchRun(tmpDir, logDir, log);
    process.once('SIGINT', () => {
      log('interrupted; cleaning up');
      void run.stopAll().finally(() => process.exit(130));
    });
    return run;
  }

  /** True once the run is stopping its processes (a child exiting then is expected). */
  get stopping(): boolean {
    return this.ending;
  }

  /** Starts `node <script> ...args`; it is stopped when the run ends. */
  spawn(name: string, script: string, args: string[], options: Omit<SpawnOptions, 'logDir'> = {}): Child {
    const child = spawnNode(name, script, args, { ...options, logDir: this.logDir });
    this.children.push(child);
    return child;
  }

  /** Something to close when the run ends (a client, the gateway): the latest first, before the children stop. */
  onEnd(close: () => Promise<unknown>): void {
    this.closers.push(close);
  }

  /** Stops everything; removes the scratch directory only when the run succeeded. */
  async end(succeeded: boolean): Promise<void> {
    await this.stopAll();
    if (succeeded && process.env.BENCH_KEEP_LOGS !== '1')
      await rm(this.tmpDir, { recursive: true, force: true }).catch(() => {});
    else this.log(`logs kept in ${this.logDir}`);
  }

  private async stopAll(): Promise<void> {
    this.ending = true;
    for (const close of this.closers.splice(0).reverse()) {
      await close().catch((err: unknown) => this.log(`cleanup failed: ${String(err)}`));
    }
    await Promise.all(this.children.splice(0).map((c) => c.stop()));
  }
}
