import type { ApiKeyContext } from '../keys/api-key.js';
import type { RoutingServices } from './plan.js';
import { chooseVersion, parseTemplateVars, renderTemplate } from './templates.js';

export interface ChosenTemplate {
  /** The rendered text to put in front of the system prompt. */
  readonly text: string;
  readonly versionId: string;
}

export interface TemplateRequest {
  /** The model the request named (`auto:cost`, `@preset/x` or an id). */
  readonly model: string;
  readonly sessionId: string | undefined;
  /** `X-Service-Template-Vars`. */
  readonly varsHeader: string | undefined;
  readonly now: number;
}

/**
 * The prompt template version this call runs, rendered, when the key has one bound: variables
 * `key_name`, `model`, `date` (UTC, YYYY-MM-DD) and those of `X-Service-Template-Vars`.
 */
export async function chooseTemplate(
  services: RoutingServices,
  key: ApiKeyContext,
  request: TemplateRequest,
): Promise<ChosenTemplate | undefined> {
  const versions = await services.cache.templateVersions(key.id);
  const version = chooseVersion(
    versions.map((v) => ({ id: v.id, templateId: v.template_id, text: v.text, weight: v.weight })),
    request.sessionId,
  );
  if (!version) return undefined;
  const values = {
    key_name: key.name,
    model: request.model,
    date: new Date(request.now).toISOString().slice(0, 10),
    ...parseTemplateVars(request.varsHeader),
  };
  return { text: renderTemplate(version.text, values), versionId: version.id };
}
