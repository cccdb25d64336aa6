import type { PrivateCallRow, TaskRow } from '../db/schema.js';

/** What `call` and `getResult` answer in `data`: the call's state, and its result or error once ended. */
export interface PrivateCallView {
  task_id: string;
  client_request_id: string;
  status: string;
  result?: unknown;
  error?: { code: string; message: string };
}

/** A chat call's state, and its completion or error once it ended. */
export function privateCallView(call: PrivateCallRow): PrivateCallView {
  const view: PrivateCallView = { task_id: call.id, client_request_id: call.client_request_id, status: call.status };
  if (call.result != null) view.result = call.result;
  if (call.error) view.error = { code: call.error.code, message: call.error.message };
  return view;
}

/** A task call: the task's status, the task view (with `stored_url` once mirrored) once it succeeded, its error once it failed. */
export function taskCallView(
  task: TaskRow,
  clientRequestId: string | null,
  taskView: (task: TaskRow) => unknown,
): PrivateCallView {
  const view: PrivateCallView = { task_id: task.id, client_request_id: clientRequestId ?? '', status: task.status };
  if (task.status === 'succeeded') view.result = taskView(task);
  if (task.error_code) view.error = { code: task.error_code, message: task.error_message ?? task.error_code };
  return view;
}

export const ENDED_STATUSES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'cancelled', 'expired']);
