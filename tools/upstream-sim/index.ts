// A fake upstream provider for tests, benchmarks and demo mode; started in-process.
import type { AddressInfo } from 'node:net';
import { BehaviourStore, type SimBehaviour } from './behaviour.js';
import { createSimServer } from './server.js';
import { StatsTracker, type SimStats } from './stats.js';
import { taskView, type SimTaskView } from './tasks/task-control.js';
import type { TaskError } from './tasks/task-record.js';
import { TaskStore } from './tasks/task-store.js';

export type { SimBehaviour, SimFault, SimTaskFault } from './behaviour.js';
export type { SimStats, TaskCounters } from './stats.js';
export type { SimTaskView } from './tasks/task-control.js';
export type { TaskError, TaskKind, TaskProtocol, TaskStatus } from './tasks/task-record.js';
/** The bytes a result URL serves, to check a download or a mirrored copy against. */
export { resultBytes } from './tasks/result-bytes.js';

export interface UpstreamSimOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  defaults?: SimBehaviour;
  models?: Record<string, SimBehaviour>;
  /**
   * When set, requests must present it, each protocol in its own header: chat completions
   * `Authorization: Bearer`, Messages `x-api-key` (401), generateContent `x-goog-api-key` (400
   * API_KEY_INVALID, as Google answers).
   */
  apiKey?: string;
  /** The clock tasks run on, epoch ms; tests may pass a controllable one. Default Date.now. */
  now?: () => number;
  /**
   * Where task result URLs and image URLs point, e.g. `https://cdn.example` (a CDN in front of the
   * files; whatever serves there must serve `/_sim/files/...` itself). Default: the simulator as the
   * client reached it.
   */
  resultOrigin?: string;
}

export interface UpstreamSim {
  /** Base URL without a path, e.g. http://127.0.0.1:4010 (OpenAI clients add /v1). */
  url: string;
  port: number;
  /** Stops listening and drops open connections, hung requests included. */
  close(): Promise<void>;
  setModel(name: string, behaviour: SimBehaviour): void;
  setDefaults(behaviour: SimBehaviour): void;
  stats(): SimStats;
  resetStats(): void;
  /** Every live task of both task protocols (not removed). */
  tasks(): SimTaskView[];
  /** Forces a task to succeeded now; throws when there is no such task. */
  finishTask(id: string): SimTaskView;
  /** Forces a task to failed now, with this error or the simulator's default one. */
  failTask(id: string, error?: TaskError): SimTaskView;
}

export async function startUpstreamSim(options: UpstreamSimOptions = {}): Promise<UpstreamSim> {
  const host = options.host ?? '127.0.0.1';
  const behaviours = new BehaviourStore(options.defaults, options.models);
  const stats = new StatsTracker();
  const store = new TaskStore(options.now ?? Date.now);
  const server = createSimServer({
    behaviours,
    stats,
    apiKey: options.apiKey,
    tasks: store,
    resultOrigin: options.resultOrigin,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}`;
  const forced = (id: string, status: 'succeeded' | 'failed', error?: TaskError): SimTaskView => {
    const task = store.get(id);
    if (task === undefined) throw new Error(`upstream sim: no task ${id}`);
    store.force(task, status, error);
    return taskView(task, store, options.resultOrigin ?? url);
  };
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
    setModel: (name, behaviour) => behaviours.setModel(name, behaviour),
    setDefaults: (behaviour) => behaviours.setDefaults(behaviour),
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
    tasks: () => store.list().map((task) => taskView(task, store, options.resultOrigin ?? url)),
    finishTask: (id) => forced(id, 'succeeded'),
    failTask: (id, error) => forced(id, 'failed', error),
  };
}
