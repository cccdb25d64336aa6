// The create body of OpenAI's POST /videos: multipart/form-data (what the official SDKs send) or JSON.
import type { IncomingMessage } from 'node:http';
import { readBody } from '../http-io.js';
import type { TaskRequest } from './task-create.js';

const SECONDS = ['4', '8', '12', '16', '20'];
const SIZES = ['720x1280', '1280x720', '1024x1792', '1792x1024'];
const DEFAULT_MODEL = 'sora-2';

export type VideoCreate =
  | { ok: true; request: TaskRequest; fields: Record<string, unknown> }
  | { ok: false; status: 400 | 413; message: string; param: string | null; code: string | null };

const bad = (param: string | null, message: string, code: string | null = null): VideoCreate => ({
  ok: false,
  status: 400,
  message,
  param,
  code,
});

type Fields = { fields: Record<string, unknown> } | { error: VideoCreate };

/** The form fields as a plain object; uploaded files (input_reference) become a short description. */

async function readFields(req: IncomingMessage): Promise<Fields> {
  const body = await readBody(req);
  if (body === undefined)
    return { error: { ok: false, status: 413, message: 'Request body too large.', param: null, code: null } };
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) {
    try {
      // undici's multipart parser, built into Node: no dependency for one form.
      const form = await new Response(body, { headers: { 'content-type': type } }).formData();
      const fields: Record<string, unknown> = {};
      for (const [name, value] of form) fields[name] = typeof value === 'string' ? value : `<file ${value.size} bytes>`;
      return { fields };
    } catch {
      return { error: bad(null, 'Could not parse the multipart form body.') };
    }
  }
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return { fields: value as Record<string, unknown> };
  } catch {
    // answered below
  }
  return { error: bad(null, 'We could not parse the JSON body of your request. The API expects a JSON payload.') };
}

const oneOf = (param: string, value: unknown, allowed: string[]): VideoCreate =>
  bad(
    param,
    `Invalid value: '${String(value)}'. Supported values are: ${allowed.map((v) => `'${v}'`).join(', ')}.`,
    'invalid_value',
  );

export async function parseVideoCreate(req: IncomingMessage): Promise<VideoCreate> {
  const read = await readFields(req);
  if ('error' in read) return read.error;
  const { fields } = read;
  const { prompt, model = DEFAULT_MODEL, seconds = '4', size = '720x1280' } = fields;
  if (typeof prompt !== 'string' || prompt === '')
    return bad('prompt', "Missing required parameter: 'prompt'.", 'missing_required_parameter');
  if (typeof model !== 'string' || model === '')
    return bad('model', "Invalid type for 'model': expected a string.", 'invalid_type');
  if (typeof seconds !== 'string' || !SECONDS.includes(seconds)) return oneOf('seconds', seconds, SECONDS);
  if (typeof size !== 'string' || !SIZES.includes(size)) return oneOf('size', size, SIZES);
  return {
    ok: true,
    fields,
    request: { model, kind: 'video', count: 1, text: prompt, textParam: 'prompt', echo: { prompt, seconds, size } },
  };
}
