/**
 * One run of a job per key at a time: callers that ask while it runs share its outcome (a crowd of
 * calls that all find an account's balance unloaded in Redis loads it from Postgres once).
 */
export class SingleFlight<K> {
  private readonly running = new Map<K, Promise<void>>();

  run(key: K, job: () => Promise<void>): Promise<void> {
    let run = this.running.get(key);
    if (!run) {
      run = job().finally(() => this.running.delete(key));
      this.running.set(key, run);
    }
    return run;
  }
}
