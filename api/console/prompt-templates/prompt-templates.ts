import type { Context, Middleware } from 'koa';
import { findTemplate, foreignKeys, listTemplates, writeTemplateParts } from '../../../shared/db/prompt-templates.js';
import { badRequest, GatewayError, notFound } from '../../../shared/errors.js';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { readConsoleBody } from '../body.js';
import { readPageQuery, sendData, sendPage } from '../envelope.js';
import { signedIn } from '../session.js';
import { templateCreateSchema, templateUpdateSchema, templateView } from './template-body.js';
import { UUID_PATTERN as UUID } from '../../../shared/ids.js';

const templateNotFound = () => notFound('no such prompt template');

function idParam(ctx: Context): string {
  const id = String(ctx.params.id ?? '');
  if (!UUID.test(id)) throw templateNotFound();
  return id;
}

/** Keys of another account answer like missing ones: nothing about another account is revealed. */
async function checkKeys(services: GatewayServices, userId: string, keyIds: string[] | undefined): Promise<void> {
  const [foreign] = await foreignKeys(services.db, userId, keyIds ?? []);
  if (foreign) {
    const field = `key_ids[${keyIds!.indexOf(foreign)}]`;
    throw badRequest(`invalid value for '${field}': no key ${foreign} in this account`, field);
  }
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string }).code === '23505';
}

/** POST /api/v1/prompt-templates: a template with its versions, optionally bound to keys. */
export function createTemplate(services: GatewayServices): Middleware {
  return async (ctx) => {
    const body = await readConsoleBody(ctx, templateCreateSchema);
    const userId = signedIn(ctx).user.id;
    await checkKeys(services, userId, body.key_ids);
    const id = await services.db
      .transaction()
      .execute(async (trx) => {
        const { id } = await trx
          .insertInto('prompt_templates')
          .values({ user_id: userId, name: body.name })
          .returning('id')
          .executeTakeFirstOrThrow();
        await writeTemplateParts(trx, id, body.versions, body.key_ids ?? []);
        return id;
      })
      .catch((err: unknown) => {
        throw isUniqueViolation(err)
          ? new GatewayError('conflict', 409, `a template named '${body.name}' already exists`, { param: 'name' })
          : err;
      });
    services.routing.cache.clear();
    sendData(ctx, templateView((await findTemplate(services.db, userId, id))!), 201);
  };
}

export function listTemplatesRoute(services: GatewayServices): Middleware {
  return async (ctx) => {
    const query = readPageQuery(ctx);
    const { rows, total } = await listTemplates(services.db, signedIn(ctx).user.id, query.page, query.pageSize);
    sendPage(ctx, query, rows.map(templateView), total);
  };
}

export function getTemplate(services: GatewayServices): Middleware {
  return async (ctx) => {
    const found = await findTemplate(services.db, signedIn(ctx).user.id, idParam(ctx));
    if (!found) throw templateNotFound();
    sendData(ctx, templateView(found));
  };
}

/** PATCH: `versions` and `key_ids`, when given, replace the template's whole list. */
export function patchTemplate(services: GatewayServices): Middleware {
  return async (ctx) => {
    const id = idParam(ctx);
    const body = await readConsoleBody(ctx, templateUpdateSchema);
    const userId = signedIn(ctx).user.id;
    if (!(await findTemplate(services.db, userId, id))) throw templateNotFound();
    await checkKeys(services, userId, body.key_ids);
    await services.db
      .transaction()
      .execute(async (trx) => {
        await trx
          .updateTable('prompt_templates')
          .set({ ...(body.name !== undefined && { name: body.name }), updated_at: new Date() })
          .where('id', '=', id)
          .execute();
        await writeTemplateParts(trx, id, body.versions, body.key_ids);
      })
      .catch((err: unknown) => {
        throw isUniqueViolation(err)
          ? new GatewayError('conflict', 409, `a template named '${body.name}' already exists`, { param: 'name' })
          : err;
      });
    services.routing.cache.clear();
    sendData(ctx, templateView((await findTemplate(services.db, userId, id))!));
  };
}

export function removeTemplate(services: GatewayServices): Middleware {
  return async (ctx) => {
    const result = await services.db
      .deleteFrom('prompt_templates')
      .where('id', '=', idParam(ctx))
      .where('user_id', '=', signedIn(ctx).user.id)
      .executeTakeFirst();
    if (result.numDeletedRows === 0n) throw templateNotFound();
    services.routing.cache.clear();
    ctx.status = 204;
  };
}
