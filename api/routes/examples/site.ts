/** The health probes: liveness, and readiness (Postgres and Redis answer). */

export const LIVENESS_RESPONSE = { status: 'ok' };
/** 503 with the same fields when Postgres or Redis does not answer. */
export const READINESS_RESPONSE = { status: 'ok', postgres: true, redis: true };
