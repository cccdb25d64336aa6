import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { TASK_PROTOCOLS, type TaskProtocol } from './tasks/task-record.js';

/** Per task protocol. Every request is counted whatever its answer, except taskCreates. */
export interface TaskCounters {
  /** Tasks actually created: an idempotent replay or a refused submit adds none. */
  taskCreates: number;
  /** Create requests received (POST). */
  taskCreateRequests: number;
  /** Task reads (GET of one task). */
  taskPolls: number;
  /** Cancel / delete requests (DELETE). */
  taskCancels: number;
  /** Result downloads answered with bytes (GET of a result URL or of OpenAI's /content). */
  resultDownloads: number;
}

export interface SimStats {
  requests: number;
  inFlight: number;
  maxInFlight: number;
  byModel: Record<string, number>;
  lastRequestBody?: unknown;
  /** The last request body as it arrived, byte for byte (text). */
  lastRequestText?: string;
  lastHeaders?: Record<string, string | string[] | undefined>;
  tasks: Record<TaskProtocol, TaskCounters>;
}

const zeroCounters = (): TaskCounters => ({
  taskCreates: 0,
  taskCreateRequests: 0,
  taskPolls: 0,
  taskCancels: 0,
  resultDownloads: 0,
});
const copyTasks = (from?: Record<TaskProtocol, TaskCounters>): Record<TaskProtocol, TaskCounters> =>
  Object.fromEntries(
    TASK_PROTOCOLS.map((protocol) => [protocol, { ...(from?.[protocol] ?? zeroCounters()) }]),
  ) as Record<TaskProtocol, TaskCounters>;

/** Counts protocol requests; a request is in flight from arrival until its response finishes or the client leaves. */
export class StatsTracker {
  private requests = 0;
  private inFlight = 0;
  private maxInFlight = 0;
  private byModel = new Map<string, number>();
  private lastRequestBody: unknown;
  private lastRequestText: string | undefined;
  private lastHeaders: IncomingHttpHeaders | undefined;
  private tasks = copyTasks();

  begin(req: IncomingMessage, res: ServerResponse): void {
    this.requests++;
    this.inFlight++;
    if (this.inFlight > this.maxInFlight) this.maxInFlight = this.inFlight;
    this.lastHeaders = req.headers;
    // 'close' fires both after a finished response and when the connection drops early.
    res.once('close', () => this.inFlight--);
  }

  recordBody(model: string | undefined, body: unknown, text?: string): void {
    this.lastRequestBody = body;
    this.lastRequestText = text;
    if (model !== undefined) this.byModel.set(model, (this.byModel.get(model) ?? 0) + 1);
  }

  countTask(protocol: TaskProtocol, counter: keyof TaskCounters): void {
    this.tasks[protocol][counter]++;
  }

  snapshot(): SimStats {
    const stats: SimStats = {
      requests: this.requests,
      inFlight: this.inFlight,
      maxInFlight: this.maxInFlight,
      byModel: Object.fromEntries(this.byModel),
      tasks: copyTasks(this.tasks),
    };
    if (this.lastRequestBody !== undefined) stats.lastRequestBody = this.lastRequestBody;
    if (this.lastRequestText !== undefined) stats.lastRequestText = this.lastRequestText;
    if (this.lastHeaders !== undefined) stats.lastHeaders = { ...this.lastHeaders };
    return stats;
  }

  /** Requests still in flight stay counted, so inFlight never goes negative after a reset. */
  reset(): void {
    this.requests = 0;
    this.maxInFlight = this.inFlight;
    this.byModel.clear();
    this.lastRequestBody = undefined;
    this.lastRequestText = undefined;
    this.lastHeaders = undefined;
    this.tasks = copyTasks();
  }
}
