import type { Group } from '../catalog/index.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import type { UsageEvent } from '../usage/record.js';
import type { Grant } from './grants.js';
import type { RateLayer } from './layers.js';

export interface AdmissionInput {
  key: ApiKeyContext;
  group: Group;
  callId: string;
  /** The most the call can cost, reserved against the balance and every quota cap. */
  maxCost: number;
  /** Reserved against TPM, corrected to the actual tokens when the call ends. */
  estimatedTokens: number;
  now: number;
  /**
   * A task's reservation outlives the creating request: it lasts this long (its deadline and some)
   * instead of being renewed by this process, and the task takes no concurrency lease.
   */
  detachedReservationTtlMs?: number;
  /** false: the call holds no concurrency slot (a request that generates nothing). Default true. */
  holdsSlot?: boolean;
}

/** What an admitted call holds until `finish`. */
export interface Admitted {
  readonly headers: Record<string, string>;
  readonly tpm: readonly RateLayer[];
  readonly concurrencyKeys: readonly string[];
  readonly estimatedTokens: number;
  /** The micro-USD reserved (finish gives back what the call did not cost). */
  readonly reserved: number;
  /** The key's reserved-spend counter when the reservation also holds its quota caps, else ''. */
  readonly quotaReserved: string;
  /** The grant the call was admitted from, without a Redis call of its own (shared/limits/grants.ts). */
  readonly grant?: Grant;
}

export interface FinishInput {
  owner: { userId: string; keyId: string };
  callId: string;
  now: number;
  /** Priced cost: what was reserved is charged first, the rest from the balance as far as it goes. */
  cost: number;
  admitted: Admitted | undefined;
  actualTokens: number;
  /** The usage record to queue (its charge is added here, as settled). */
  record: UsageEvent | undefined;
  /** Finish at most once for this call (tasks: a settle job that runs twice charges once). */
  once?: boolean;
}

export interface AdmissionOptions {
  reservationTtlMs: number;
  leaseTtlMs: number;
  /** false: every call is decided in Redis (ADMISSION_GRANTS=false). */
  grants?: boolean;
}

export const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;
export const NONE: readonly never[] = Object.freeze([]);
