import type { Context, Middleware } from 'koa';
import type { z } from 'zod';
import { GatewayError } from '../../shared/errors.js';
import { fieldPath, parseOrThrow } from '../../shared/validation.js';
import { readJsonObject } from '../middleware/read-json.js';

// Console bodies are small settings objects; anything near this is a mistake or an attack.
const CONSOLE_BODY_LIMIT = 1024 * 1024;

/**
 * Reads and validates a console body against a `z.strictObject` schema. The spec's strict parsing:
 * an undeclared field is 400 `invalid_json`; any other problem is 400 `invalid_request` naming the
 * field. A request without a body reads as `{}`, so body-less POSTs (logout, revoke) just work.
 */
export async function readConsoleBody<S extends z.ZodType>(ctx: Context, schema: S): Promise<z.infer<S>> {
  const value = hasBody(ctx) ? (await readJsonObject(ctx, CONSOLE_BODY_LIMIT)).value : {};
  return parseConsoleBody(schema, value);
}

export function parseConsoleBody<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const unknown = result.error.issues.find((issue) => issue.code === 'unrecognized_keys');
  if (unknown) {
    const fields = unknown.keys.map((key) => fieldPath([...unknown.path, key]));
    const list = fields.map((f) => `'${f}'`).join(', ');
    throw new GatewayError(
      'invalid_json',
      400,
      `undeclared field${fields.length > 1 ? 's' : ''} ${list} in the request body`,
      { param: fields[0] },
    );
  }
  return parseOrThrow(schema, value);
}

/**
 * Every console request that carries a body must declare it JSON, or is refused with 415
 * `unsupported_media_type` before any handler runs. An HTML form can only send urlencoded,
 * multipart or text/plain bodies without a preflight, so a cross-site form (`enctype=text/plain`
 * shaped like JSON) cannot reach a console route even where a cookie would not be needed.
 */
export const jsonBodiesOnly: Middleware = async (ctx, next) => {
  if (hasBody(ctx) && !ctx.is('application/json')) {
    throw new GatewayError(
      'unsupported_media_type',
      415,
      'console request bodies must be JSON: send `Content-Type: application/json`',
      { param: 'Content-Type' },
    );
  }
  await next();
};

/** Node's own rule (as `type-is` applies it): a body exists when it is chunked or has a non-zero length. */
function hasBody(ctx: Context): boolean {
  if (ctx.get('transfer-encoding')) return true;
  const length = ctx.get('content-length');
  return length !== '' && length !== '0';
}
