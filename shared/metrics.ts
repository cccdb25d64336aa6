import { Registry } from 'prom-client';

/** The API process's own metrics, served on `GET /metrics` (operator token); workers have theirs (workers/metrics.ts). */
export const apiRegistry = new Registry();
