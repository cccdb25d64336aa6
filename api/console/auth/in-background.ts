import type { GatewayServices } from '../../../shared/gateway/services.js';

/**
 * Runs work after the answer is sent: for flows whose answer must not depend on whether an account
 * exists (its timing included). Failures are logged; the caller already answered.
 */
export function inBackground(services: GatewayServices, what: string, work: () => Promise<void>): void {
  setImmediate(() => {
    work().catch((err: unknown) => services.log.error({ err }, `${what} failed`));
  });
}
