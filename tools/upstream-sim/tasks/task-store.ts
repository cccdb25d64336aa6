// Every task of one simulator instance, with the Idempotency-Key index of each protocol.
import { randomBytes } from 'node:crypto';
import type { ResolvedBehaviour } from '../behaviour.js';
import {
  isTerminal,
  taskState,
  type TaskError,
  type TaskKind,
  type TaskProtocol,
  type TaskRecord,
  type TaskState,
} from './task-record.js';

export interface NewTask {
  protocol: TaskProtocol;
  kind: TaskKind;
  model: string;
  count: number;
  echo: TaskRecord['echo'];
  idempotencyKey: string | undefined;
  behaviour: ResolvedBehaviour;
}

let taskSeq = 0;

function newId(protocol: TaskProtocol): string {
  // Shaped like each provider's ids: "cgt-<yyyymmddhhmmss>-<random>" and "video_<hex>".
  if (protocol === 'openai-videos') return `video_${randomBytes(16).toString('hex')}`;
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  return `cgt-${stamp}-${(++taskSeq).toString(36)}${randomBytes(3).toString('hex')}`;
}

export type CancelOutcome = 'cancelled' | 'removed' | 'not-found';

export class TaskStore {
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly byKey = new Map<string, TaskRecord>();

  constructor(readonly now: () => number) {}

  /**
   * The task already created under this Idempotency-Key, even if since deleted: a replay must never
   * start a second one. Keys are scoped per protocol.
   */
  findByKey(protocol: TaskProtocol, key: string): TaskRecord | undefined {
    return this.byKey.get(`${protocol}\n${key}`);
  }

  create(input: NewTask): TaskRecord {
    const { behaviour } = input;
    const task: TaskRecord = {
      id: newId(input.protocol),
      protocol: input.protocol,
      kind: input.kind,
      model: input.model,
      count: input.count,
      createdAt: this.now(),
      echo: input.echo,
      idempotencyKey: input.idempotencyKey,
      plan: {
        queuedMs: behaviour.taskQueuedMs,
        runMs: behaviour.taskRunMs,
        fail: behaviour.taskFault === 'fail',
        pollErrorEvery: behaviour.taskFault === 'pollError500' ? behaviour.pollErrorEvery : 0,
        progressSteps: behaviour.progressSteps,
        resultBytes: behaviour.resultBytes,
        resultUrlTtlMs: behaviour.resultUrlTtlMs,
      },
      polls: 0,
      removed: false,
    };
    this.tasks.set(task.id, task);
    if (input.idempotencyKey !== undefined) this.byKey.set(`${input.protocol}\n${input.idempotencyKey}`, task);
    return task;
  }

  /** A live task of the protocol (any protocol when left out). */
  get(id: string, protocol?: TaskProtocol): TaskRecord | undefined {
    const task = this.tasks.get(id);
    return task !== undefined && (protocol === undefined || task.protocol === protocol) ? task : undefined;
  }

  state(task: TaskRecord): TaskState {
    return taskState(task, this.now());
  }

  /** A queued or running task is cancelled; a finished one is removed. */
  cancelOrRemove(task: TaskRecord): CancelOutcome {
    if (!isTerminal(this.state(task).status)) {
      task.cancelledAt = this.now();
      return 'cancelled';
    }
    this.remove(task);
    return 'removed';
  }

  remove(task: TaskRecord): void {
    task.removed = true;
    this.tasks.delete(task.id);
  }

  /** Forces a terminal state now, whatever the timeline says (a cancel is overridden too). */
  force(task: TaskRecord, status: 'succeeded' | 'failed', error?: TaskError): void {
    delete task.cancelledAt;
    task.forced = { status, at: this.now(), ...(error ? { error } : {}) };
  }

  list(): TaskRecord[] {
    return [...this.tasks.values()];
  }

  /** Forgets every task and key. */
  clear(): void {
    this.tasks.clear();
    this.byKey.clear();
  }
}
