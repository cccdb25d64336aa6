import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { sendJson } from './http-io.js';

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export function openAiError(
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
): OpenAiErrorBody {
  return { error: { message, type, param, code } };
}

export function sendOpenAiError(
  res: ServerResponse,
  status: number,
  body: OpenAiErrorBody,
  headers?: OutgoingHttpHeaders,
): void {
  sendJson(res, status, body, headers);
}

export function invalidRequest(res: ServerResponse, message: string, param: string | null = null): void {
  sendOpenAiError(res, 400, openAiError(message, 'invalid_request_error', param));
}

export function unknownRoute(res: ServerResponse, method: string | undefined, path: string): void {
  sendOpenAiError(res, 404, openAiError(`Invalid URL (${method ?? 'GET'} ${path})`, 'invalid_request_error'));
}

/** OpenAI's missing-key and wrong-key answers differ only in message and code. */
export function unauthorized(res: ServerResponse, keyGiven: boolean): void {
  const body = keyGiven
    ? openAiError('Incorrect API key provided.', 'invalid_request_error', null, 'invalid_api_key')
    : openAiError("You didn't provide an API key. Send it as Authorization: Bearer <key>.", 'invalid_request_error');
  sendOpenAiError(res, 401, body);
}

export function serverError(res: ServerResponse): void {
  const message = 'The server had an error while processing your request. Sorry about that!';
  sendOpenAiError(res, 500, openAiError(message, 'server_error'));
}

export function rateLimited(res: ServerResponse, retryAfterSeconds: number): void {
  const message = `Rate limit reached for requests. Please try again in ${retryAfterSeconds}s.`;
  sendOpenAiError(res, 429, openAiError(message, 'requests', null, 'rate_limit_exceeded'), {
    'retry-after': String(retryAfterSeconds),
  });
}

/** The event a stream ends with when the upstream fails after headers were sent. */
export const MID_STREAM_ERROR_EVENT =
  'data: {"error":{"message":"upstream exploded","type":"server_error","code":"internal_error"}}\n\n';
