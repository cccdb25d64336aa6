import type { Middleware } from 'koa';
import { publicUser } from '../../../shared/db/users.js';
import { sendData } from '../envelope.js';
import { signedIn } from '../session.js';

/** GET /api/v1/auth/me: the signed-in user. */
export const me: Middleware = async (ctx) => {
  sendData(ctx, publicUser(signedIn(ctx).user));
};
