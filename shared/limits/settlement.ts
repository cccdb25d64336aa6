import { utcPeriods } from '../clock.js';
import type { UsageEvent } from '../usage/record.js';
import type { FinishInput } from './admission-types.js';
import { NONE } from './admission-types.js';
import type { StepOp } from './admit-fields.js';
import type { RateLayer } from './layers.js';
import type { LimitKeyNames } from './limit-keys.js';
import type { StepBatch } from './step-batch.js';

export interface FinishFields {
  now: number;
  /** The call's id, or the grant's whose hold pays. */
  id: string;
  /** Micro-USD asked; the script charges less only when the reservation and the balance ran out. */
  charge: number;
  /** What the admission reserved; '' = look it up (a task settling later), 'g<n>' = a grant's call that took n. */
  held: string | number;
  quotaReserved: string;
  userId: string;
  keyId: string;
  /** The key that makes this finish happen at most once, or ''. */
  once: string;
  /** The usage record to queue, or undefined. */
  record: UsageEvent | undefined;
  /** Layers whose TPM reservation is corrected by `tokenDelta`. */
  tpm: readonly RateLayer[];
  tokenDelta: number;
  concurrencyKeys: readonly string[];
}

/** The end of a call (STEP's F operation): charges, gives back the rest of the hold, queues the record. */
export function finishOp(names: LimitKeyNames, f: FinishFields): StepOp {
  const acct = names.account(f.userId);
  const { now } = f;
  const op: StepOp = ['F', now, f.id, f.charge, f.held, f.quotaReserved, acct.bal, acct.resv, acct.und, acct.epoch];
  const periods = utcPeriods(now);
  op.push(names.keySpendPrefix(f.keyId), periods.day, periods.month, periods.week, names.keys.usageQueue);
  op.push(f.once, f.record ? queuedRecord(f.record, f.charge) : '');
  op.push(f.tpm.length);
  if (f.tpm.length > 0) {
    op.push(f.tokenDelta);
    for (const r of f.tpm) op.push(r.k, r.tpm!);
  }
  op.push(f.concurrencyKeys.length);
  for (const k of f.concurrencyKeys) op.push(k);
  return op;
}

/**
 * Ends a call decided in Redis: releases what it held, charges it and queues its record; resolves
 * with the amount charged. Without the admission at hand (a task settling later, an admission that
 * got no answer) the script looks the reservation up.
 */
export async function settleCall(step: StepBatch, names: LimitKeyNames, input: FinishInput): Promise<number> {
  const a = input.admitted;
  const op = finishOp(names, {
    now: input.now,
    id: input.callId,
    charge: input.cost,
    held: a && a.reserved >= 0 ? a.reserved : '',
    quotaReserved: a?.quotaReserved ?? '',
    userId: input.owner.userId,
    keyId: input.owner.keyId,
    once: input.once ? names.keys.finished(input.callId) : '',
    record: input.record,
    tpm: a?.tpm ?? NONE,
    tokenDelta: a ? input.actualTokens - a.estimatedTokens : 0,
    concurrencyKeys: a?.concurrencyKeys ?? NONE,
  });
  return Number(await step.run(op));
}

/** The record as the usage queue holds it: JSON ending with its charge (see the STEP script's finish). */
function queuedRecord(event: UsageEvent, charge: number): string {
  const json = JSON.stringify(event);
  return `${json.slice(0, -1)},"charged_micro_usd":${charge}}`;
}
