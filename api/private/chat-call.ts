import { checkInlineImages } from '../../shared/assets/inline-images.js';
import { checkAssetReferences } from '../../shared/assets/text-call-assets.js';
import { GatewayError, isGatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { planTextCall } from '../../shared/generation/read-text-call.js';
import { chatCompletionsText } from '../../shared/generation/surfaces/chat-completions.js';
import type { SurfaceCall } from '../../shared/generation/text-surface.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import type { PrivateCallRequest } from '../../shared/private/call-request.js';
import type { RoutingPlan } from '../../shared/routing/plan.js';

/** A private chat call's `input`, read once before anything is stored. */
export interface PrivateChat {
  /** The chat-completions body as validated: what is stored, and what the call runs without parsing it again. */
  parsed: SurfaceCall;
  /** Step 4's plan, carried to the job. */
  plan: RoutingPlan;
  /** Bytes of the body as stored. */
  bytes: number;
}

/** The standard call's schema errors, named where the caller wrote the field (`input.messages`). */
export function withinInput<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (isGatewayError(err) && err.param && !err.param.startsWith('input'))
      throw new GatewayError(err.code, err.status, err.message.replace(`'${err.param}'`, `'input.${err.param}'`), {
        param: `input.${err.param}`,
      });
    throw err;
  }
}

/**
 * Reads a private chat call's `input` as the chat-completions body it is (its schema, once) and
 * runs step 4 (once), before anything is stored: a call that cannot run is refused, never kept.
 * Only `standard_v1` streams are streamed; `legacy_v1` streams are answered whole, at the end, so
 * they run as any other call. The usage chunk is the gateway's to ask for, never the client's.
 */
export async function readChatCall(
  services: GatewayServices,
  key: ApiKeyContext,
  req: PrivateCallRequest,
): Promise<PrivateChat> {
  const stream = req.stream === true && key.profile === 'standard_v1';
  const input = Object.assign({}, req.input, { model: req.model, stream });
  const parsed = withinInput(() => chatCompletionsText.parse(input, {}));
  delete parsed.body.stream_options;
  parsed.clientWantsUsage = false;
  // Inline images checked like uploads, and (after step 4, as runTextCall does) asset references
  // against the key's scope, here where the call is accepted (the worker runs it later): an image or
  // a reference it cannot use is refused, never stored.
  const inInput = (err: unknown) =>
    withinInput(() => {
      throw err;
    });
  await checkInlineImages(parsed.body, undefined).catch(inInput);
  const plan = await planTextCall(services, key, parsed);
  await checkAssetReferences(services.db, key, parsed.body).catch(inInput);
  return { parsed, plan, bytes: Buffer.byteLength(JSON.stringify(parsed.body)) };
}
