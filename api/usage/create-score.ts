import type { Middleware } from 'koa';
import { sql } from 'kysely';
import { z } from 'zod';
import { badRequest, notFound } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { parseConsoleBody } from '../console/body.js';
import { usageQueued } from '../../shared/usage/queued.js';
import { readJsonObject } from '../middleware/read-json.js';
import { authenticateAndCount } from '../http/credential.js';

export const scoreSchema = z.strictObject({
  request_id: z.string().min(1).max(200).optional(),
  session_id: z.string().min(1).max(128).optional(),
  name: z.string().regex(/^[a-z0-9._-]{1,40}$/, '1-40 characters of lower-case letters, digits, ".", "-" and "_"'),
  value: z.number().min(-1_000_000).max(1_000_000),
  comment: z.string().max(2_000).optional(),
});

/**
 * POST /v1/scores: any key of the account scores one of the account's requests or sessions; a
 * second score with the same name on the same target replaces the value. A request or session of
 * another account answers exactly like a missing one (404). Usage records land in Postgres about a
 * second after their call: a score for one still in the usage queue waits until it lands.
 */
export function createScore(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticateAndCount(ctx, services);
    const body = parseConsoleBody(scoreSchema, (await readJsonObject(ctx, services.config.http.bodyLimitBytes)).value);
    if ((body.request_id === undefined) === (body.session_id === undefined))
      throw badRequest('give exactly one of request_id and session_id', 'request_id');
    const target =
      body.request_id !== undefined ? sql`request_id = ${body.request_id}` : sql`session_id = ${body.session_id}`;
    const recorded = async () =>
      (await sql`SELECT 1 FROM usage_records WHERE user_id = ${key.userId} AND ${target} LIMIT 1`.execute(services.db))
        .rows.length > 0;
    const field = body.request_id !== undefined ? 'request_id' : 'session_id';
    const queued = () =>
      usageQueued(
        services.redis,
        services.redisKeys.usageQueue,
        key.userId,
        field,
        (body.request_id ?? body.session_id)!,
      );
    if (!(await recorded()) && !(await landsSoon(recorded, queued)))
      throw notFound(
        body.request_id !== undefined
          ? `no request ${body.request_id} in this account`
          : `no session ${body.session_id} in this account`,
      );
    const conflict =
      body.request_id !== undefined
        ? sql`(user_id, request_id, name) WHERE request_id IS NOT NULL`
        : sql`(user_id, session_id, name) WHERE session_id IS NOT NULL`;
    const { rows } = await sql<{ created_at: Date; updated_at: Date }>`
      INSERT INTO scores (user_id, api_key_id, request_id, session_id, name, value, comment)
      VALUES (${key.userId}, ${key.id}, ${body.request_id ?? null}, ${body.session_id ?? null}, ${body.name}, ${body.value}, ${body.comment ?? null})
      ON CONFLICT ${conflict} DO UPDATE SET value = excluded.value, comment = excluded.comment, api_key_id = excluded.api_key_id, updated_at = now()
      RETURNING created_at, updated_at`.execute(services.db);
    const row = rows[0]!;
    ctx.body = {
      object: 'score',
      ...(body.request_id !== undefined ? { request_id: body.request_id } : { session_id: body.session_id }),
      name: body.name,
      value: body.value,
      comment: body.comment ?? null,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  };
}

/** While the record waits in the queue, Postgres is asked again every 100 ms, for at most 5 s. */
async function landsSoon(recorded: () => Promise<boolean>, queued: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    // Queued and then drained between the two looks: Postgres has it now.
    if (!(await queued())) return recorded();
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (await recorded()) return true;
  }
  return false;
}
