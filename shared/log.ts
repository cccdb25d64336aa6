import { pino, type Logger } from 'pino';

export type { Logger };

// Upstream credentials and console secrets must never reach a log line.
const redact = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'req.headers["x-vendor-api-key"]',
  'req.headers.cookie',
  '*.apiKey',
  '*.api_key',
  '*.password',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: redact, censor: '[redacted]' }, base: { pid: process.pid } });
}
