/**
 * Where a test run looks for the machine's own Postgres when TEST_DATABASE_URL is unset:
 * 127.0.0.1:5432. TEST_POSTGRES_DEFAULT_PORT moves it, so a test can point it at a port where
 * nothing listens and see the run start the embedded Postgres (test/lifecycle/embedded-test-postgres.test.ts).
 */
export const DEFAULT_POSTGRES = {
  host: '127.0.0.1',
  port: Number(process.env.TEST_POSTGRES_DEFAULT_PORT ?? 5432),
};

export const DEFAULT_POSTGRES_URL = `postgres://postgres@${DEFAULT_POSTGRES.host}:${DEFAULT_POSTGRES.port}/postgres`;
