// What every text protocol handler of the simulator does the same way: read the body, pick the
// behaviour from the model's settings and the prompt's directives, and hand over the faults.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BehaviourError, parseDirectives, type ResolvedBehaviour } from './behaviour.js';
import { readJsonBody, ResponseClock } from './http-io.js';
import type { SimContext } from './sim-context.js';

export interface ProtocolErrors {
  invalid(res: ServerResponse, message: string, param?: string): void;
  tooLarge(res: ServerResponse): void;
  serverError(res: ServerResponse): void;
  rateLimited(res: ServerResponse, retryAfterSeconds: number): void;
}

export interface ReadRequest {
  body: Record<string, unknown>;
  behaviour: ResolvedBehaviour;
  clock: ResponseClock;
}

/** The body as an object and the behaviour it asks for; answers the protocol's 400/413 itself (then undefined). */
export async function readSimRequest(
  req: IncomingMessage,
  res: ServerResponse,
  sim: SimContext,
  errors: ProtocolErrors,
  modelOf: (body: Record<string, unknown>) => string | undefined,
  directiveText: (body: Record<string, unknown>) => string,
): Promise<ReadRequest | undefined> {
  const body = await readJsonBody(req);
  if (!body.ok && body.reason === 'too-large') return void errors.tooLarge(res);
  if (!body.ok) return void errors.invalid(res, 'The request body is not valid JSON.');
  if (typeof body.value !== 'object' || body.value === null || Array.isArray(body.value))
    return void errors.invalid(res, 'The request body must be a JSON object.');
  const value = body.value as Record<string, unknown>;
  const model = modelOf(value);
  sim.stats.recordBody(model, value, body.text);
  try {
    const behaviour = sim.behaviours.resolve(model ?? '', parseDirectives(directiveText(value)));
    return { body: value, behaviour, clock: new ResponseClock(res) };
  } catch (error) {
    if (error instanceof BehaviourError) return void errors.invalid(res, error.message);
    throw error;
  }
}

/** Applies the faults that replace a whole answer; true when one did (nothing more to write). */
export function answeredByFault(
  res: ServerResponse,
  behaviour: ResolvedBehaviour,
  stream: boolean,
  errors: ProtocolErrors,
): boolean {
  switch (behaviour.fault) {
    case 'hang':
      return true; // never answer; the clock lets go when the client closes
    case 'error500':
      errors.serverError(res);
      return true;
    case 'error429':
      errors.rateLimited(res, behaviour.retryAfterSeconds);
      return true;
    case 'disconnect':
      if (stream) return false;
      res.destroy();
      return true;
    case 'errorMidStream':
      if (stream) return false;
      errors.serverError(res);
      return true;
    default:
      return false;
  }
}

/**
 * Writes stream frames as they fall due, with the mid-stream faults at `faultAt` (a frame index);
 * `endAt` is the first of the closing frames (finish, usage, end marker), where stallBeforeEnd stops.
 */
export function writeFrames(
  res: ServerResponse,
  frames: string[],
  behaviour: ResolvedBehaviour,
  clock: ResponseClock,
  faultAt: number,
  errorFrame: string,
  endAt: number,
): void {
  let next = 0;
  const writeDue = (): void => {
    while (next < frames.length && !res.destroyed) {
      if (next === faultAt && behaviour.fault === 'errorMidStream') return void res.end(errorFrame);
      if (next === faultAt && behaviour.fault === 'disconnect') return void setImmediate(() => res.destroy());
      if (next === endAt && behaviour.fault === 'stallBeforeEnd') return; // the clock lets go when the client closes
      res.write(frames[next++]);
      if (behaviour.chunkDelayMs > 0 && next < frames.length) return clock.after(behaviour.chunkDelayMs, writeDue);
    }
    res.end();
  };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  writeDue();
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
