// POST /v1/images/generations and /v1/images/edits (JSON), as OpenAI answers them: `url` (the
// default, as DALL·E models answer; served from /_sim/images/) or `b64_json`; the same faults.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './http-io.js';
import {
  invalidRequest,
  openAiError,
  rateLimited,
  sendOpenAiError,
  serverError,
  unauthorized,
} from './openai-errors.js';
import { answeredByFault, readSimRequest, type ProtocolErrors } from './sim-request.js';
import type { SimContext } from './sim-context.js';
import { resultOrigin } from './tasks/result-files.js';

export const IMAGES_PREFIX = '/_sim/images/';
const PNG_MAGIC = Buffer.from('89504e470d0a1a0a', 'hex');
let seq = 0;

/** The bytes of a generated image: the PNG signature, then bytes derived from its name (reproducible). */
export function simImageBytes(name: string, size = 2048): Buffer {
  const bytes = Buffer.alloc(size);
  PNG_MAGIC.copy(bytes);
  let x = 0;
  for (const c of name) x = (x * 31 + c.charCodeAt(0)) >>> 0;
  for (let i = PNG_MAGIC.length; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}

const ERRORS: ProtocolErrors = {
  invalid: (res, message, param) => invalidRequest(res, message, param ?? null),
  tooLarge: (res) => sendOpenAiError(res, 413, openAiError('Request body too large.', 'invalid_request_error')),
  serverError,
  rateLimited,
};

export async function handleImages(
  req: IncomingMessage,
  res: ServerResponse,
  sim: SimContext,
  edit: boolean,
): Promise<void> {
  if (sim.apiKey !== undefined && req.headers.authorization !== `Bearer ${sim.apiKey}`) {
    req.resume();
    return unauthorized(res, req.headers.authorization !== undefined);
  }
  const read = await readSimRequest(
    req,
    res,
    sim,
    ERRORS,
    (b) => (typeof b.model === 'string' ? b.model : undefined),
    (b) => (typeof b.prompt === 'string' ? b.prompt : ''),
  );
  if (!read) return;
  const { body, behaviour, clock } = read;
  if (typeof body.prompt !== 'string' || body.prompt === '')
    return ERRORS.invalid(res, "Missing required parameter: 'prompt'.", 'prompt');
  if (edit && (!Array.isArray(body.images) || body.images.length === 0))
    return ERRORS.invalid(res, "Missing required parameter: 'images'.", 'images');
  const n = body.n === undefined ? 1 : Number(body.n);
  if (!Number.isInteger(n) || n < 1 || n > 10)
    return ERRORS.invalid(res, "Invalid 'n': expected an integer from 1 to 10.", 'n');
  clock.after(behaviour.latencyMs, () => {
    if (answeredByFault(res, behaviour, false, ERRORS)) return;
    const id = `img${(++seq).toString(36)}`;
    const names = Array.from({ length: n }, (_, i) => `${id}-${i}.png`);
    const data = names.map((name) =>
      body.response_format === 'b64_json'
        ? { b64_json: simImageBytes(name).toString('base64') }
        : { url: `${resultOrigin(req, sim)}${IMAGES_PREFIX}${name}`, revised_prompt: body.prompt },
    );
    sendJson(res, 200, { created: Math.floor(Date.now() / 1000), data });
  });
}

/** GET /_sim/images/{name}.png: a generated image, as a CDN would serve it (no auth). */
export function handleImageFile(res: ServerResponse, path: string): void {
  const name = path.slice(IMAGES_PREFIX.length);
  if (!/^img[0-9a-z]+-\d+\.png$/.test(name)) return void res.writeHead(404).end();
  const bytes = simImageBytes(name);
  res.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.length });
  res.end(bytes);
}
