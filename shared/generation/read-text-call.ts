import type { GatewayServices } from '../gateway/services.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import type { ForwardedHeaders } from '../providers/chat-adapter.js';
import { withDefaultModel } from '../routing/default-model.js';
import { planModels, type RoutingPlan } from '../routing/plan.js';
import { chooseTemplate } from '../routing/prompt-template.js';
import { parseProviderPreferences } from '../routing/provider-preferences.js';
import { GenerationRequest } from './request-body.js';
import type { TextCall } from './text-call.js';
import type { RouteParams, SurfaceCall } from './text-surface.js';

/** What a client sent over HTTP, read by readTextCall. */
export interface TextInput {
  readonly body: { value: Record<string, unknown>; raw: Buffer | undefined; bytes: number };
  readonly params: RouteParams;
  /** Headers a same-protocol upstream needs to read the body as the client meant it (Messages' anthropic-version). */
  readonly forwarded: ForwardedHeaders | undefined;
  /** `X-Service-Template-Vars`. */
  readonly templateVars: string | undefined;
}

/**
 * Reads a text call's body: the key's default model where the body names none, the protocol's
 * schema, step 4 (planTextCall), the prompt template bound to the key, and the body per upstream
 * protocol (setTextBody).
 */
export async function readTextCall(services: GatewayServices, call: TextCall, input: TextInput): Promise<void> {
  const { key, textSurface } = call;
  const body = input.body;
  if (textSurface.modelInBody) body.value = withDefaultModel(body.value, key);
  const parsed = textSurface.parse(body.value, input.params);
  call.plan = await planTextCall(services, key, parsed);
  const template = await chooseTemplate(services.routing, key, {
    model: parsed.model,
    sessionId: call.sessionId ?? undefined,
    varsHeader: input.templateVars,
    now: services.clock.now(),
  });
  call.templateVersionId = template?.versionId ?? null;
  setTextBody(call, parsed, body.raw, body.bytes, input.forwarded, template?.text);
}

/** Step 4 of a text call (model, endpoint, the key's group: shared/routing/plan.ts), with its provider preferences. */
export function planTextCall(services: GatewayServices, key: ApiKeyContext, parsed: SurfaceCall): Promise<RoutingPlan> {
  const preferences = parseProviderPreferences(parsed.provider, services.catalog);
  return planModels(services.routing, key, parsed.model, 'chat/completions', preferences);
}

/**
 * The call's parsed body and its body per upstream protocol: the client's bytes while nothing
 * changes them; without the gateway's routing field (`provider`) and with a template's text
 * re-serialised.
 */
export function setTextBody(
  call: TextCall,
  parsed: SurfaceCall,
  raw: Buffer | undefined,
  bytes: number,
  forwarded: ForwardedHeaders | undefined,
  templateText: string | undefined,
): void {
  call.parsed = parsed;
  call.bodyBytes = bytes;
  const request = new GenerationRequest(call.protocol, parsed.body, raw, parsed.stream, forwarded);
  if (parsed.provider !== undefined || templateText !== undefined) {
    let body: Record<string, unknown> = Object.assign({}, parsed.body);
    delete body.provider;
    if (templateText !== undefined) body = call.textSurface.withSystemPrompt(body, templateText);
    request.replaceBody(body);
  }
  call.request = request;
}
