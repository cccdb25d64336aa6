import type { Context } from 'koa';
import { z } from 'zod';
import { parseOrThrow } from '../../shared/validation.js';

/** `{data, request_id}`: the console's success envelope. */
export function sendData(ctx: Context, data: unknown, status = 200): void {
  ctx.status = status;
  ctx.body = { data, request_id: ctx.state.requestId as string };
}

export interface PageQuery {
  page: number;
  pageSize: number;
}

// Digits only: `Number()` would also accept '', ' 1', '1e2' and '0x10'.
const whole = z
  .string('must be given once')
  .regex(/^\d{1,9}$/, 'must be a positive whole number')
  .transform(Number);

export const pageQuerySchema = z.object({
  page: whole.pipe(z.number().min(1, 'must be at least 1')).default(1),
  page_size: whole.pipe(z.number().min(1, 'must be at least 1').max(100, 'must be at most 100')).default(20),
});

/** `page` ≥ 1 (default 1) and `page_size` 1..100 (default 20) from the query; 400 naming the field otherwise. */
export function readPageQuery(ctx: Context): PageQuery {
  const { page, page_size } = parseOrThrow(pageQuerySchema, { page: ctx.query.page, page_size: ctx.query.page_size });
  return { page, pageSize: page_size };
}

/** `{list, total, page, page_size, request_id}`: the console's paginated envelope. */
export function sendPage(ctx: Context, query: PageQuery, list: unknown[], total: number): void {
  ctx.body = { list, total, page: query.page, page_size: query.pageSize, request_id: ctx.state.requestId as string };
}

/** The schema of `sendData`'s answer, `{data, request_id}`, around the schema of its `data`. */
export const dataEnvelope = <T extends z.ZodType>(data: T) => z.strictObject({ data, request_id: z.string() });

/** The schema of `sendPage`'s answer around the schema of one item of its `list`. */
export const pageEnvelope = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    list: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    page_size: z.number().int(),
    request_id: z.string(),
  });
