import type { BehaviourStore } from './behaviour.js';
import type { StatsTracker } from './stats.js';
import type { TaskStore } from './tasks/task-store.js';

/** What every protocol handler of one simulator instance shares. */
export interface SimContext {
  behaviours: BehaviourStore;
  stats: StatsTracker;
  /** When set, protocol requests must present it (each protocol in its own header). */
  apiKey: string | undefined;
  /** The asynchronous tasks of both task protocols; its clock is the simulator's clock. */
  tasks: TaskStore;
  /** Where result URLs point when not at the simulator itself (a CDN's origin). */
  resultOrigin?: string | undefined;
}
