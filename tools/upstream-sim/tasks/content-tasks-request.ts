// The create body of the content-tasks protocol, checked the way the provider checks it.
import type { TaskRequest } from './task-create.js';

const ROLES = ['first_frame', 'last_frame', 'reference_image'];
export const RESOLUTIONS: Readonly<Record<string, readonly [number, number]>> = {
  '480p': [864, 480],
  '720p': [1280, 720],
  '1080p': [1920, 1080],
};
const MAX_IMAGES = 10;

export type ParsedCreate = { ok: true; request: TaskRequest } | { ok: false; message: string; param: string };

const bad = (param: string, message: string): ParsedCreate => ({ ok: false, param, message });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text parts joined, or why a part is not acceptable. */
function readContent(content: unknown): { text: string } | { error: ParsedCreate } {
  if (!Array.isArray(content) || content.length === 0) {
    return { error: bad('content', 'content must be a non-empty array of parts') };
  }
  const texts: string[] = [];
  for (const [i, part] of content.entries()) {
    const param = `content[${i}]`;
    if (!isRecord(part)) return { error: bad(param, 'each content part must be an object') };
    if (part.type === 'text') {
      if (typeof part.text !== 'string') return { error: bad(`${param}.text`, 'a text part needs a string text') };
      texts.push(part.text);
    } else if (part.type === 'image_url') {
      const url = isRecord(part.image_url) ? part.image_url.url : undefined;
      if (typeof url !== 'string' || url === '')
        return { error: bad(`${param}.image_url.url`, 'an image_url part needs image_url.url') };
      if (part.role !== undefined && !ROLES.includes(part.role as string)) {
        return { error: bad(`${param}.role`, `role must be one of ${ROLES.join(', ')}`) };
      }
    } else {
      return { error: bad(`${param}.type`, 'part type must be text or image_url') };
    }
  }
  return { text: texts.join(' ') };
}

function wholeIn(value: unknown, min: number, max: number): boolean {
  return Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
}

/**
 * The one rule for image tasks: a model whose name starts with "img" (case-insensitive) makes
 * images — as on the real provider, the model decides what a task produces, so adapters send the
 * same body for both and need no extra field. `n` (1–10, default 1) is the number of images.
 */
export const isImageModel = (model: string): boolean => model.toLowerCase().startsWith('img');

export function parseContentTaskCreate(body: unknown): ParsedCreate {
  if (!isRecord(body)) return bad('body', 'the request body must be a JSON object');
  const { model, duration = 5, resolution = '720p', generate_audio: audio = false, ratio = '16:9', n = 1 } = body;
  if (typeof model !== 'string' || model === '') return bad('model', 'model is required');
  const content = readContent(body.content);
  if ('error' in content) return content.error;
  if (!wholeIn(duration, 1, 60)) return bad('duration', 'duration must be a whole number of seconds from 1 to 60');
  if (typeof resolution !== 'string' || !Object.hasOwn(RESOLUTIONS, resolution)) {
    return bad('resolution', `resolution must be one of ${Object.keys(RESOLUTIONS).join(', ')}`);
  }
  if (typeof audio !== 'boolean') return bad('generate_audio', 'generate_audio must be a boolean');
  if (typeof ratio !== 'string') return bad('ratio', 'ratio must be a string');
  const image = isImageModel(model);
  if (image && !wholeIn(n, 1, MAX_IMAGES)) return bad('n', `n must be a whole number from 1 to ${MAX_IMAGES}`);
  const request: TaskRequest = image
    ? { model, kind: 'image', count: n as number, echo: { n: n as number }, text: content.text, textParam: 'content' }
    : {
        model,
        kind: 'video',
        count: 1,
        text: content.text,
        textParam: 'content',
        echo: { resolution, ratio, duration: duration as number, generate_audio: audio },
      };
  return { ok: true, request };
}
