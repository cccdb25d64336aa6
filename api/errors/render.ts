import type { Context } from 'koa';
import type { GatewayError } from '../../shared/errors.js';

/** One renderer per protocol; the route prefix picks it (see protocolFor). */
export type ErrorRenderer = (err: GatewayError, ctx: Context) => unknown;

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

export const renderOpenAi: ErrorRenderer = (err) => openAiError(err);

/** The console's flat envelope; the numeric `code` is the HTTP status. */
export const renderConsole: ErrorRenderer = (err, ctx) => ({
  code: err.status,
  error_code: err.code,
  message: err.message,
  request_id: ctx.state.requestId as string,
});

export function rendererFor(path: string): ErrorRenderer {
  if (path.startsWith('/api/')) return renderConsole;
  return renderOpenAi;
}
