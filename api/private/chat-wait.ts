import type { ServerResponse } from 'node:http';
import { findOwnerPrivateCall } from '../../shared/db/private-calls.js';
import type { PrivateCallRow } from '../../shared/db/schema.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { ENDED_STATUSES } from '../../shared/private/call-view.js';
import type { CallWaiter } from '../../shared/private/call-waiter.js';

type Waiter = ReturnType<CallWaiter['until']>;

/**
 * How long one wait for a call's end lasts before the call is read once more: an end announced
 * while this process's Redis subscriber was away (or an announcement that failed) is found this way.
 */
const RECHECK_MS = 30_000;

/**
 * The first wait for a new call, registered before its job can start so its end is never missed;
 * none when the client asked for an answer at once. `limitMs` undefined: until the call ends.
 */
export function firstWait(services: GatewayServices, id: string, limitMs: number | undefined): Waiter | undefined {
  if (limitMs === 0) return undefined;
  return services.calls.until(id, Math.min(limitMs ?? RECHECK_MS, RECHECK_MS));
}

/**
 * A chat call once it ended — however long its job takes (the upstream's time-outs bound it), when
 * `limitMs` is undefined — or as it is when `limitMs` ran out or the client went away. The job
 * announces the end with the outcome (nothing to read); a wait that ran out or a reconnect reads
 * the call once, then waits again.
 */
export async function chatCallAfter(
  services: GatewayServices,
  key: ApiKeyContext,
  call: PrivateCallRow,
  first: Waiter | undefined,
  limitMs: number | undefined,
  res: ServerResponse,
): Promise<PrivateCallRow> {
  const deadline = limitMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + limitMs;
  const read = () => findOwnerPrivateCall(services.db, key.userId, call.id).then((c) => c ?? call);
  let waiter = first;
  let current = call;
  let gone = false;
  // A client that hung up needs no answer: the job still ends the call, and getResult shows it.
  const onClose = () => {
    gone = true;
    waiter?.cancel();
  };
  res.once('close', onClose);
  try {
    for (;;) {
      if (ENDED_STATUSES.has(current.status) || gone) return current;
      if (!waiter) {
        const left = deadline - performance.now();
        if (left <= 0) return current;
        waiter = services.calls.until(call.id, Math.min(left, RECHECK_MS));
        // Read after the wait is on: an end between the last read and now is found here.
        current = await read();
        continue;
      }
      const ended = await waiter.done;
      waiter.cancel();
      waiter = undefined;
      if (ended)
        return Object.assign({}, current, {
          status: ended.status,
          result: ended.result ?? null,
          error: ended.error ?? null,
        });
      current = await read();
    }
  } finally {
    waiter?.cancel();
    res.off('close', onClose);
  }
}
