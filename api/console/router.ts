import type Router from '@koa/router';
import { apiRouter } from '../http/router.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { login } from './auth/login.js';
import { logout } from './auth/logout.js';
import { me } from './auth/me.js';
import { patchProfile } from './auth/profile.js';
import { sensitiveCode } from './auth/sensitive-code.js';
import { closeAccountRoute } from './auth/close-account.js';
import {
  authorize,
  callback,
  linkProvider,
  listIdentities,
  listProviders,
  providerTwoStep,
  unlinkIdentity,
} from './auth/oauth.js';
import {
  listPasskeys,
  passkeyRegistrationOptions,
  passkeySignIn,
  passkeySignInOptions,
  registerPasskey,
  removePasskey,
} from './auth/passkeys.js';
import { changePassword, confirmPasswordReset, requestPasswordReset } from './auth/password.js';
import { confirmRegistration, register } from './auth/register.js';
import { listSessions, revokeSessionRoute } from './auth/sessions.js';
import { mfaStatus, setTwoFactor } from './auth/two-factor.js';
import { createKey } from './keys/create-key.js';
import { getKey } from './keys/get-key.js';
import { listKeyGroups } from './keys/list-groups.js';
import { listKeys } from './keys/list-keys.js';
import { revokeKey } from './keys/revoke-key.js';
import { updateKey } from './keys/update-key.js';
import { createPreset, getPreset, listPresetsRoute, patchPreset, removePreset } from './presets/presets.js';
import {
  createTemplate,
  getTemplate,
  listTemplatesRoute,
  patchTemplate,
  removeTemplate,
} from './prompt-templates/prompt-templates.js';
import { consoleSurface } from '../assets/asset-surface.js';
import { assetRoutes } from '../assets/router.js';
import { getAccountSettings, patchAccountSettings } from './account/settings.js';
import { createExport, getExport, listExports } from './datasets/exports.js';
import { jsonBodiesOnly } from './body.js';
import { consoleOriginGuard } from './origin-guard.js';
import { refuseApiKeys, requireSession } from './session.js';
import { consoleLedger, consoleUsageLogs, consoleUsageReport } from './usage/console-usage.js';

/** The console API under /api/v1 (session credential; API keys are refused on every route). */
export function consoleRouter(services: GatewayServices): Router {
  const router = apiRouter('/api/v1');
  const session = requireSession(services);
  // Before every route: a console route never runs for a foreign Origin or a non-JSON body.
  router.use(consoleOriginGuard(services), jsonBodiesOnly, refuseApiKeys);

  router.post('/auth/register', register(services));
  router.post('/auth/register/confirm', confirmRegistration(services));
  router.post('/auth/login', login(services));
  router.post('/auth/login/2fa', login(services, true));
  router.post('/auth/logout', session, logout(services));
  router.get('/auth/me', session, me);
  router.patch('/auth/me', session, patchProfile(services));
  router.post('/auth/sensitive-code', session, sensitiveCode(services));
  router.get('/auth/mfa/status', session, mfaStatus);
  router.post('/auth/two-factor', session, setTwoFactor(services));
  router.post('/auth/password/change', session, changePassword(services));
  router.post('/auth/password/reset/request', requestPasswordReset(services));
  router.post('/auth/password/reset/confirm', confirmPasswordReset(services));
  router.get('/auth/sessions', session, listSessions(services));
  router.post('/auth/sessions/:id/revoke', session, revokeSessionRoute(services));
  router.post('/auth/account/close', session, closeAccountRoute(services));

  router.get('/auth/passkeys', session, listPasskeys(services));
  router.post('/auth/passkeys/register/options', session, passkeyRegistrationOptions(services));
  router.post('/auth/passkeys/register', session, registerPasskey(services));
  router.post('/auth/passkeys/login/options', passkeySignInOptions(services));
  router.post('/auth/passkeys/login', passkeySignIn(services));
  router.post('/auth/passkeys/:id/remove', session, removePasskey(services));

  router.get('/auth/oauth/providers', listProviders(services));
  router.post('/auth/oauth/2fa', providerTwoStep(services));
  router.get('/auth/oauth/:provider/authorize', authorize(services));
  router.get('/auth/oauth/:provider/callback', callback(services));
  router.post('/auth/oauth/:provider/link', session, linkProvider(services));
  router.get('/auth/identities', session, listIdentities(services));
  router.post('/auth/identities/:provider/unlink', session, unlinkIdentity(services));

  router.get('/keys', session, listKeys(services));
  router.post('/keys', session, createKey(services));
  router.get('/keys/groups', session, listKeyGroups(services));
  router.get('/keys/:id', session, getKey(services));
  router.patch('/keys/:id', session, updateKey(services));
  router.post('/keys/:id/revoke', session, revokeKey(services));

  router.get('/usage/report', session, consoleUsageReport(services));
  router.get('/usage/logs', session, consoleUsageLogs(services));
  router.get('/ledger', session, consoleLedger(services));
  // Assets uploaded here count as "uploaded in the console" (every key with `own` sees them).
  assetRoutes(router, services, consoleSurface, session);
  router.get('/account/settings', session, getAccountSettings(services));
  router.patch('/account/settings', session, patchAccountSettings(services));
  router.get('/datasets/exports', session, listExports(services));
  router.post('/datasets/exports', session, createExport(services));
  router.get('/datasets/exports/:id', session, getExport(services));

  router.get('/presets', session, listPresetsRoute(services));
  router.post('/presets', session, createPreset(services));
  router.get('/presets/:slug', session, getPreset(services));
  router.patch('/presets/:slug', session, patchPreset(services));
  router.delete('/presets/:slug', session, removePreset(services));

  router.get('/prompt-templates', session, listTemplatesRoute(services));
  router.post('/prompt-templates', session, createTemplate(services));
  router.get('/prompt-templates/:id', session, getTemplate(services));
  router.patch('/prompt-templates/:id', session, patchTemplate(services));
  router.delete('/prompt-templates/:id', session, removeTemplate(services));
  return router;
}
