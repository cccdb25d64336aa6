import type { CatalogModel } from '../catalog/index.js';
import { GatewayError, isGatewayError } from '../errors.js';
import { tokenCost, type Discount } from './pricing.js';

/**
 * A refusal for money (balance or quota cap) rewritten to say how many output tokens what is left
 * could pay for, as OpenRouter's 402 does, so a client can lower `max_tokens` and retry. Any other
 * error is returned as it is.
 */
export function affordableOutput(
  err: unknown,
  model: CatalogModel,
  promptTokens: number,
  maxOutput: number,
  discount: Discount,
  choices = 1,
): unknown {
  if (!isGatewayError(err) || err.available === undefined) return err;
  // The cap holds each of `choices` answers (`n`): the advice is a cap per answer.
  const cost = (output: number) =>
    tokenCost(model, { inputTokens: promptTokens, outputTokens: output * choices, cachedTokens: 0 }, discount);
  let affordable = -1;
  if (cost(0) <= err.available) {
    // The largest output the amount covers, by bisection (cost grows with the output).
    let lo = 0;
    let hi = maxOutput;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (cost(mid) <= err.available) lo = mid;
      else hi = mid - 1;
    }
    affordable = lo;
  }
  const advice =
    affordable > 0
      ? `; you asked for up to ${maxOutput} output tokens and what is left covers ${affordable}: lower max_tokens`
      : '; what is left does not cover this prompt';
  return new GatewayError(err.code, err.status, `${err.message}${advice}`, {
    param: affordable > 0 ? 'max_tokens' : undefined,
    ...(err.retryAfter !== undefined && { retryAfter: err.retryAfter }),
    ...(err.headers !== undefined && { headers: err.headers }),
    available: err.available,
  });
}
