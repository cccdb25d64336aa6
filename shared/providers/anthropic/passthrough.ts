import { rawForwardable } from '../raw-body.js';
import { STRIPPED_FIELDS } from '../unpriced-options.js';

// The fields the gateway reads to route, price or refuse a Messages call (see rawForwardable).
const READ_ONCE = ['"model"', '"max_tokens"', '"stream"', '"mcp_servers"', '"container"'];
const NEVER_RAW = ['"tools"', ...STRIPPED_FIELDS.anthropic.map((f) => `"${f}"`)];

/** A Messages body for a Messages upstream: the client's bytes when nothing has to change, else re-serialised. */
export function messagesPassthroughBody(
  upstreamModel: string,
  request: { body: Record<string, unknown>; raw: Buffer | undefined },
  maxOutput: number,
): Buffer | string {
  const { raw } = request;
  if (
    raw &&
    request.body.model === upstreamModel &&
    request.body.max_tokens === maxOutput &&
    rawForwardable(raw, READ_ONCE, NEVER_RAW)
  )
    return raw;
  const body: Record<string, unknown> = Object.assign({}, request.body);
  body.model = upstreamModel;
  body.max_tokens = maxOutput;
  for (const f of STRIPPED_FIELDS.anthropic) delete body[f];
  return JSON.stringify(body);
}
