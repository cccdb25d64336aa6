import type { GatewayError } from '../errors.js';

/** One renderer per protocol, pure: the error and the call's request id in, the body out. */
export type ErrorRenderer = (err: GatewayError, requestId: string) => unknown;

const OPENAI_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_quota',
  403: 'permission_error',
  404: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
};

/** OpenAI's error body. */
export function openAiError(err: GatewayError) {
  return {
    error: {
      message: err.message,
      type: OPENAI_TYPES[err.status] ?? (err.status >= 500 ? 'api_error' : 'invalid_request_error'),
      param: err.param ?? null,
      code: err.code,
    },
  };
}

const MESSAGES_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'request_too_large',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** The Messages protocol's error body; our code is in `error.code` and where the SDK reads it (`details.error_code`). */
export function messagesError(err: GatewayError, requestId: string) {
  const error: Record<string, unknown> = {
    type: MESSAGES_TYPES[err.status] ?? (err.status >= 500 ? 'api_error' : 'invalid_request_error'),
    message: err.message,
    code: err.code,
    details: { error_code: err.code },
  };
  if (err.param !== undefined) error.param = err.param;
  return { type: 'error', error, request_id: requestId };
}

const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  402: 'FAILED_PRECONDITION',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  422: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** The generateContent protocol's error body (google.rpc.Status): our code is the ErrorInfo `reason`. */
export function contentError(err: GatewayError, requestId: string) {
  const metadata: Record<string, string> = { request_id: requestId };
  if (err.param !== undefined) metadata.field = err.param;
  const details: Record<string, unknown>[] = [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: err.code, domain: 'gateway', metadata },
  ];
  if (err.retryAfter !== undefined)
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${err.retryAfter}s` });
  return {
    error: {
      code: err.status,
      message: err.message,
      status: GOOGLE_STATUS[err.status] ?? (err.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT'),
      details,
    },
  };
}

export const renderOpenAi: ErrorRenderer = (err) => openAiError(err);

/** The console's flat envelope; the numeric `code` is the HTTP status; `param` names the field at fault. */
export const renderConsole: ErrorRenderer = (err, requestId) => ({
  code: err.status,
  error_code: err.code,
  message: err.message,
  ...(err.param !== undefined && { param: err.param }),
  ...(err.details !== undefined && { details: err.details }),
  request_id: requestId,
});

export type ErrorProtocol = 'openai' | 'responses' | 'anthropic' | 'gemini' | 'console' | 'private';

export const RENDERERS: Readonly<Record<ErrorProtocol, ErrorRenderer>> = {
  openai: renderOpenAi,
  responses: renderOpenAi,
  anthropic: messagesError,
  gemini: contentError,
  console: renderConsole,
  // The private protocol's envelope (api/private/envelope.ts): code = the HTTP-like status.
  private: (err, requestId) => ({
    code: err.status,
    message: err.message,
    request_id: requestId,
    error_code: err.code,
  }),
};

/** Which protocol answers for a path: the route prefixes of the spec's Versioning section. */
export function protocolOfPath(path: string): ErrorProtocol {
  if (path.startsWith('/api/')) return 'console';
  if (path.startsWith('/server')) return 'private';
  if (path.startsWith('/native-messages') || path === '/v1/messages' || path.startsWith('/v1/messages/'))
    return 'anthropic';
  if (path.startsWith('/native-content') || path.startsWith('/v1beta')) return 'gemini';
  return 'openai';
}

export function rendererFor(path: string): ErrorRenderer {
  return RENDERERS[protocolOfPath(path)];
}

/** The event a stream of each protocol ends with when it cannot be completed (headers already sent). */
export function streamErrorEvent(
  protocol: 'openai' | 'responses' | 'anthropic' | 'gemini',
  code: string,
  message: string,
): string {
  switch (protocol) {
    case 'anthropic':
      return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message, code, details: { error_code: code } } })}\n\n`;
    case 'gemini':
      return `data: ${JSON.stringify({ error: { code: 500, message, status: 'INTERNAL', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: code, domain: 'gateway' }] } })}\n\n`;
    case 'responses':
      return `event: error\ndata: ${JSON.stringify({ type: 'error', code, message, param: null })}\n\n`;
    default:
      return `data: ${JSON.stringify({ error: { message, type: 'api_error', param: null, code } })}\n\n`;
  }
}
