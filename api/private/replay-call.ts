import { findOwnerPrivateCall, findOwnerTask, PRIVATE_ENDPOINT } from '../../shared/db/private-calls.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { requestHash } from '../../shared/idempotency/idempotency-key.js';
import { findStoredResults } from '../../shared/idempotency/replay.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import type { PrivateCallRequest } from '../../shared/private/call-request.js';
import { wasRefused } from '../../shared/private/refusals.js';
import { TASK_ENDPOINT } from '../../shared/tasks/create-task.js';
import type { FoundCall } from './calls.js';

const ENDPOINTS = [PRIVATE_ENDPOINT, TASK_ENDPOINT.video, TASK_ENDPOINT.image];

/** A task call's standard body: what its task's idempotency key is compared on. */
export function taskBodyOf(req: PrivateCallRequest): Record<string, unknown> {
  return Object.assign({}, req.input, { model: req.model });
}

/**
 * The call this `clientRequestId` already made with this body, chat call or task, looked up before
 * anything that may differ on a retry: which kind the model is (the catalog may have changed),
 * validation of `input`, step 4, routing, prices, assets (docs/reference/idempotency.md). A result
 * stored with another body is not a replay here: the call goes on, and its own kind's insert answers
 * 422 for it, as before (a chat id and a task id with the same value are separate).
 */
export async function findEarlierCall(
  services: GatewayServices,
  key: ApiKeyContext,
  req: PrivateCallRequest,
  callHash: Buffer,
): Promise<FoundCall | undefined> {
  const scope = { userId: key.userId, apiKeyId: key.id, key: req.clientRequestId };
  const stored = await findStoredResults(services.db, scope, ENDPOINTS, services.clock.now());
  if (stored.length === 0) return undefined;
  const taskHash = requestHash(taskBodyOf(req));
  for (const s of stored) {
    if (s.taskId === null) continue;
    if (s.endpoint === PRIVATE_ENDPOINT) {
      if (!s.requestHash.equals(callHash)) continue;
      const call = await findOwnerPrivateCall(services.db, key.userId, s.taskId);
      // A call refused when its job ran is no result: the id runs the call anew (acceptChatCall).
      if (call && !wasRefused(call)) return { kind: 'chat', call };
    } else if (s.requestHash.equals(taskHash)) {
      const task = await findOwnerTask(services.db, key.userId, s.taskId);
      if (task) return { kind: 'task', task, clientRequestId: req.clientRequestId };
    }
  }
  return undefined;
}
