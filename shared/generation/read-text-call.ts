import type { GatewayServices } from '../gateway/services.js';
import type { ApiKeyContext } from '../keys/api-key.js';
import type { ForwardedHeaders } from '../providers/chat-adapter.js';
import { withDefaultModel } from '../routing/default-model.js';
import { planModels, type RoutingPlan } from '../routing/plan.js';
import { chooseTemplate, type ChosenTemplate } from '../routing/prompt-template.js';
import { parseProviderPreferences } from '../routing/provider-preferences.js';
import { GenerationRequest } from './request-body.js';
import type { TextCall } from './text-call.js';
import type { RouteParams, SurfaceCall } from './text-surface.js';

/** What a client sent over HTTP, read as runTextCall begins. */
export interface TextInput {
  readonly body: { value: Record<string, unknown>; raw: Buffer | undefined; bytes: number };
  readonly params: RouteParams;
  /** Headers a same-protocol upstream needs to read the body as the client meant it (Messages' anthropic-version). */
  readonly forwarded: ForwardedHeaders | undefined;
  /** `X-Service-Template-Vars`. */
  readonly templateVars: string | undefined;
  /** `X-Service-Cache-TTL`, read (undefined: absent); absent input = a call the response cache never sees. */
  readonly cacheTtl?: number | undefined;
}

/**
 * A text call's body as its surface reads it: the key's default model where the body names none,
 * then the protocol's schema (400 naming the field). runTextCall then runs step 4 (planTextCall),
 * picks the key's prompt template (templateFor) and sets the body per protocol (setTextBody).
 */
export function parseTextBody(call: TextCall, input: TextInput): SurfaceCall {
  const { textSurface } = call;
  const body = input.body;
  if (textSurface.modelInBody) body.value = withDefaultModel(body.value, call.key);
  return textSurface.parse(body.value, input.params);
}

/** The prompt template version bound to the call's key, rendered (none when the key has none bound). */
export function templateFor(
  services: GatewayServices,
  call: TextCall,
  parsed: SurfaceCall,
  input: TextInput,
): Promise<ChosenTemplate | undefined> {
  return chooseTemplate(services.routing, call.key, {
    model: parsed.model,
    sessionId: call.sessionId ?? undefined,
    varsHeader: input.templateVars,
    now: services.clock.now(),
  });
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
