import type { Context } from 'koa';
import { findEndpoint } from '../../../shared/db/webhook-endpoints.js';
import type { WebhookEndpointRow } from '../../../shared/db/webhook-schema.js';
import { notFound } from '../../../shared/errors.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { signedIn } from '../session.js';

export const ENDPOINT_ID = /^wh_[0-9A-Za-z]{24}$/;
export const DELIVERY_ID = /^whd_[0-9A-Za-z]{24}$/;

export const endpointNotFound = () => notFound('no such webhook endpoint');

/** The `:id` of the path; a malformed id is a missing endpoint. */
export function endpointIdParam(ctx: Context): string {
  const id = String(ctx.params.id ?? '');
  if (!ENDPOINT_ID.test(id)) throw endpointNotFound();
  return id;
}

/** The signed-in account's endpoint named by the path; another account's is indistinguishable from a missing one. */
export async function ownEndpoint(services: GatewayServices, ctx: Context): Promise<WebhookEndpointRow> {
  const row = await findEndpoint(services.db, signedIn(ctx).user.id, endpointIdParam(ctx));
  if (!row) throw endpointNotFound();
  return row;
}
