import type { Middleware } from 'koa';
import { z } from 'zod';
import type { GatewayServices } from '../../../shared/gateway/services.js';
import { publicUser } from '../../../shared/db/users.js';
import { readConsoleBody } from '../body.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
// Codes ISO 3166-1 leaves to users or reserves, which Intl still names (ZZ "Unknown Region", EU, UN…).
const NOT_A_COUNTRY = /^(AA|Q[M-Z]|X[A-Z]|ZZ|EU|EZ|UN)$/;

/** A BCP 47 language tag, canonicalised (`en-us` → `en-US`). */
const locale = z
  .string()
  .min(2)
  .max(35)
  .transform((tag, ctx) => {
    try {
      const [canonical] = Intl.getCanonicalLocales(tag);
      if (canonical) return canonical;
    } catch {
      // not a well-formed tag
    }
    ctx.addIssue({ code: 'custom', message: 'must be a BCP 47 language tag such as en-US' });
    return z.NEVER;
  });

/** An ISO 3166-1 alpha-2 country code (upper case). */
const region = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as US')
  .transform((code) => code.toUpperCase())
  .refine(
    (code) => !NOT_A_COUNTRY.test(code) && regionNames.of(code) !== undefined,
    'must be an assigned ISO 3166-1 alpha-2 code',
  );

export const profileSchema = z.strictObject({
  nickname: z.string().trim().min(1).max(64).optional(),
  locale: locale.optional(),
  region: region.optional(),
});

/** PATCH /api/v1/auth/me `{nickname?, locale?, region?}`: omitted fields stay as they are → the user. */
export function patchProfile(services: GatewayServices): Middleware {
  return async (ctx) => {
    const body = await readConsoleBody(ctx, profileSchema);
    const userId = signedIn(ctx).user.id;
    const update: { nickname?: string; locale?: string; region?: string; updated_at: Date } = {
      updated_at: new Date(),
    };
    if (body.nickname !== undefined) update.nickname = body.nickname;
    if (body.locale !== undefined) update.locale = body.locale;
    if (body.region !== undefined) update.region = body.region;
    const user = await services.db
      .updateTable('users')
      .set(update)
      .where('id', '=', userId)
      .returningAll()
      .executeTakeFirstOrThrow();
    sendData(ctx, publicUser(user));
  };
}
