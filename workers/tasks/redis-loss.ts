import { maintenance } from './maintenance.js';
import type { TaskJobServices } from './task-steps.js';

/**
 * Notices within about a second that Redis lost its data (restarted without persistence, or
 * flushed): a marker key every worker process reads is gone. Or lost part of it: after a Sentinel
 * failover the new master (another server: another run_id) lacks what asynchronous replication had
 * not copied yet — jobs just enqueued among them — though the marker survived. The first worker to write it back
 * re-drives every unfinished task from Postgres at once — its next job enqueued under its fixed id,
 * each job checking the task's stage first, so nothing is submitted or charged twice — instead of
 * waiting for the periodic reconciler's TASK_RECONCILE_AFTER_MS. A missing marker at first start
 * runs the same harmless pass, and is only a loss worth a warning when this process had seen the
 * marker before, or when the pass found unfinished work whose jobs were gone: a fresh Redis under
 * an idle Postgres (the first `npm start`) is no alarm.
 */
export function watchRedisLoss(s: TaskJobServices, everyMs = 1_000): () => void {
  const marker = `${s.config.redis.prefix}alive`;
  let running = false;
  let seen = false;
  let server: string | undefined;
  let reconnected = true;
  const onReady = () => {
    reconnected = true;
  };
  s.redis.on('ready', onReady);
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      // Only after a reconnect: which server answers now (a failover or a restart changes it).
      if (reconnected) {
        const runId = await runIdNow();
        if (server !== undefined && runId !== server) {
          const outcome = await maintenance(s, 0);
          s.log.warn(
            { outcome: outcome.summary },
            'Redis master changed (failover or restart): every unfinished task re-driven from Postgres',
          );
          await s.redis.set(marker, String(s.clock.now()), 'NX');
        }
        // Recorded once the pass is done: a pass cut short runs again at the next tick.
        server = runId;
        reconnected = false;
      }
      if ((await s.redis.exists(marker)) === 1) {
        seen = true;
        return;
      }
      if ((await s.redis.set(marker, String(s.clock.now()), 'NX')) !== 'OK') return; // another worker re-drives
      const outcome = await maintenance(s, 0);
      if (seen || outcome.redriven > 0)
        s.log.warn({ outcome: outcome.summary }, 'Redis lost its data: every unfinished task re-driven from Postgres');
      else s.log.info({ outcome: outcome.summary }, 'Redis is new: its task marker written');
      seen = true;
    } catch {
      // Redis away: the next tick tries again once it answers.
      reconnected = true;
    } finally {
      running = false;
    }
  }, everyMs).unref();
  return () => {
    clearInterval(timer);
    s.redis.off('ready', onReady);
  };

  async function runIdNow(): Promise<string | undefined> {
    return /run_id:(\w+)/.exec(await s.redis.info('server'))?.[1];
  }
}
