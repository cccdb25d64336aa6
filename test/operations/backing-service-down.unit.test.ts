import { describe, expect, it } from 'vitest';
import { isBackingServiceDown } from '../../shared/errors.js';
import { toGatewayError } from '../../api/middleware/errors.js';

// Postgres or Redis out of reach answers 503 (retry shortly); a bug still answers 500.
describe('isBackingServiceDown', () => {
  it.each([
    ['a reset socket', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['pg losing its connection', new Error('Connection terminated unexpectedly')],
    ['pg-pool waiting too long', new Error('timeout exceeded when trying to connect')],
    [
      'Postgres shutting down',
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    ],
    ['a connection exception', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['Redis away', new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    ['Redis stalled', new Error('Command timed out')],
    ['a demoted Redis master', new Error("READONLY You can't write against a read only replica.")],
    [
      'no address answering',
      new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })], 'all failed'),
    ],
    ['a wrapped cause', new Error('query failed', { cause: new Error('Connection terminated unexpectedly') })],
  ])('%s → 503', (_, err) => {
    expect(isBackingServiceDown(err)).toBe(true);
    expect(toGatewayError(err)).toMatchObject({ status: 503, code: 'service_unavailable' });
  });

  it.each([
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['a constraint violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a non-error', 'boom'],
  ])('%s → 500', (_, err) => {
    expect(isBackingServiceDown(err)).toBe(false);
    expect(toGatewayError(err)).toMatchObject({ status: 500, code: 'internal_error' });
  });
});
