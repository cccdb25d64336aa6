import createClient from 'openapi-fetch';
import type { BearerSession } from './bearer';
import type { paths } from './schema';

/** The console's failure envelope, `{code, error_code, message, request_id}`, as a thrown error. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly requestId: string | undefined,
    /** The request field at fault, where the envelope names one (`events[0]`, `url`). */
    readonly param?: string,
  ) {
    super(message);
  }
}

export type Api = ReturnType<typeof createApi>;

/**
 * The typed client of the console API: paths, query parameters and request bodies are checked
 * against the types generated from the gateway's OpenAPI document (schema.d.ts). The session is
 * the HttpOnly cookie, which this code never sees — or, where the API is on another site, the
 * short-lived bearer tokens of `bearer` (./bearer.ts).
 */
export function createApi(base: string, bearer?: BearerSession) {
  const client = createClient<paths>({ baseUrl: base, credentials: bearer ? 'omit' : 'include' });
  if (bearer) client.use(bearer.middleware);
  return client;
}

interface Envelope<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The `data` of a success envelope (or the paginated envelope whole); an ApiError otherwise. The
 * call's answer type (the OpenAPI document's) must fit `T`: a page that reads a field the API no
 * longer answers fails to compile.
 */
export async function unwrap<T>(call: Promise<Envelope<{ data: T } | T>>): Promise<T> {
  let result: Envelope<unknown>;
  try {
    result = await call;
  } catch {
    throw new ApiError(
      0,
      'network_error',
      'The console API could not be reached. Check your connection and try again.',
      undefined,
    );
  }
  const { data, error, response } = result;
  if (!response.ok) throw toApiError(response.status, error);
  if (response.status === 204 || data === undefined) return undefined as T;
  const body = data as { data?: unknown; list?: unknown };
  return ('list' in body ? body : body.data) as T;
}

function toApiError(status: number, error: unknown): ApiError {
  const e = (error ?? {}) as { error_code?: unknown; message?: unknown; request_id?: unknown; param?: unknown };
  return new ApiError(
    status,
    typeof e.error_code === 'string' ? e.error_code : `http_${status}`,
    typeof e.message === 'string' ? e.message : `The request failed (${status}).`,
    typeof e.request_id === 'string' ? e.request_id : undefined,
    typeof e.param === 'string' ? e.param : undefined,
  );
}
