import type { Discount } from '../billing/pricing.js';
import type { Group } from '../catalog/index.js';
import { GatewayError, isGatewayError, serviceUnavailable } from '../errors.js';
import { ipAllowed, type ApiKeyContext } from '../keys/api-key.js';
import type { AdmissionInput, Admitted } from '../limits/admission.js';
import type { GatewayServices } from './services.js';

/**
 * The spec's six ordered checks. Steps 1-3 need only the credential and run before the body is
 * read (a bad key answers 401 whatever the body); steps 4-6 need the model and the call's price.
 * The first failing step answers; nothing after it runs, so nothing is reserved for a refused call.
 */
export interface Credential {
  secret: string | undefined;
  ip: string;
  /** The route is the private protocol's (`/server`): it takes `ak-` keys, and only those. */
  privateRoute?: boolean;
}

type KeyStep = (key: ApiKeyContext | null, c: Credential, now: number) => GatewayError | undefined;

const keyExistsAndEnabled: KeyStep = (key) => {
  if (!key || key.status === 'revoked') return new GatewayError('invalid_api_key', 401, 'invalid API key');
  if (key.status === 'disabled') return new GatewayError('key_disabled', 403, 'this API key is disabled');
  return undefined;
};

const keyNotExpired: KeyStep = (key, _c, now) =>
  key?.expiresAt !== null && key !== null && key.expiresAt <= now
    ? new GatewayError('key_expired', 401, 'this API key has expired')
    : undefined;

const sourceIpAllowed: KeyStep = (key, c) =>
  key?.ipAllowlist && !ipAllowed(key.ipAllowlist, c.ip)
    ? new GatewayError('ip_not_allowed', 403, `source address ${c.ip} is not on this key's allowlist`)
    : undefined;

const KEY_STEPS: readonly KeyStep[] = [keyExistsAndEnabled, keyNotExpired, sourceIpAllowed];

/** Steps 1-3. Throws the first failure as a GatewayError. */
export async function authenticate(services: GatewayServices, credential: Credential): Promise<ApiKeyContext> {
  return (
    authenticateCached(services, credential) ?? checkKey(await loadKey(services, credential), credential, Date.now())
  );
}

/**
 * Steps 1-3 without waiting, for a key the process has cached (nearly every call): the key, or
 * undefined when it must be loaded first (`authenticate`). Throws the first failure.
 */
export function authenticateCached(services: GatewayServices, credential: Credential): ApiKeyContext | undefined {
  if (!credential.secret) throw new GatewayError('invalid_api_key', 401, 'missing API key');
  // Step 1 by the key's form: ak- keys work only under /server, sk- keys everywhere else.
  if (credential.secret.startsWith('ak-') !== (credential.privateRoute === true)) {
    throw new GatewayError(
      'invalid_api_key',
      401,
      credential.privateRoute
        ? 'the private protocol takes an ak- key in the body field apiKey'
        : 'ak- keys work only with the private protocol under /server; this route takes an sk- key',
    );
  }
  const now = Date.now();
  const key = services.keyCache.cached(credential.secret, now);
  return key === undefined ? undefined : checkKey(key, credential, now);
}

async function loadKey(services: GatewayServices, credential: Credential): Promise<ApiKeyContext | null> {
  try {
    return await services.keyCache.lookup(credential.secret!);
  } catch {
    throw serviceUnavailable();
  }
}

function checkKey(key: ApiKeyContext | null, credential: Credential, now: number): ApiKeyContext {
  for (const step of KEY_STEPS) {
    const failure = step(key, credential, now);
    if (failure) throw failure;
  }
  return key as ApiKeyContext;
}

// Step 4 lives with the plan it starts (shared/routing/plan.ts); the estimates reach it from here too.
export { authorizeModel } from '../routing/plan.js';

/** The key's group as the catalog defines it now (a group removed from the catalog has no limits). */
export function groupOf(services: GatewayServices, key: ApiKeyContext): Group {
  return (
    services.catalog.groups.get(key.groupId) ?? {
      id: key.groupId,
      models: '*',
      limits: { rpm: null, tpm: null, concurrency: null },
      discountPercent: 0,
    }
  );
}

/** The key's effective discount: its account's and its group's, compounded (see finalizeCost). */
export function discountOf(services: GatewayServices, key: ApiKeyContext): Discount {
  return { accountPercent: key.owner.discountPercent, groupPercent: groupOf(services, key).discountPercent };
}

/**
 * Steps 5 and 6: the call's maximum cost reserved against the balance and every quota cap, then
 * the rate limits and concurrency of the key, account and group layers — one atomic Redis step.
 * Redis unreachable answers 503 at once: nothing is admitted without its limits.
 */
export function admit(
  services: GatewayServices,
  key: ApiKeyContext,
  callId: string,
  maxCost: number,
  estimatedTokens: number,
  detachedReservationTtlMs?: number,
): Promise<Admitted> {
  // On every chat call: one promise, no async wrapper, no object spread (see shared/routing/fallback.ts).
  const input: AdmissionInput = {
    key,
    group: groupOf(services, key),
    callId,
    maxCost,
    estimatedTokens,
    now: services.clock.now(),
    detachedReservationTtlMs,
  };
  return services.admissions.admit(input).catch((err: unknown) => {
    throw admissionFailure(services, err);
  });
}

/** A refusal stands; anything else means Redis did not answer: 503, nothing admitted. */
function admissionFailure(services: GatewayServices, err: unknown): GatewayError {
  if (isGatewayError(err)) return err;
  services.log.error({ err: (err as Error).message }, 'admission failed');
  return serviceUnavailable();
}

const NO_QUOTA: ApiKeyContext['quota'] = Object.freeze({ total: null, daily: null, monthly: null });

/**
 * Step 6 for a call that generates nothing (a model list, an estimate, a task read or cancel, a
 * key-usage lookup): it counts one request against the RPM of the key, account and group layers,
 * in the same atomic step as every other call, and resolves with the rate-limit headers. It
 * reserves no money, takes no tokens and holds no concurrency slot; quota caps are not checked, so
 * a key over its cap can still list models and look up its usage.
 */
export function countRequest(
  services: GatewayServices,
  key: ApiKeyContext,
  callId: string,
): Promise<Record<string, string>> {
  const unmetered: ApiKeyContext = Object.assign({}, key, { quota: NO_QUOTA });
  const input: AdmissionInput = {
    key: unmetered,
    group: groupOf(services, key),
    callId,
    maxCost: 0,
    estimatedTokens: 0,
    now: services.clock.now(),
    detachedReservationTtlMs: 1_000,
    holdsSlot: false,
  };
  return services.admissions.admit(input).then(
    (admitted) => admitted.headers,
    (err: unknown) => {
      throw admissionFailure(services, err);
    },
  );
}
