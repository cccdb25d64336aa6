import { GatewayError, StreamInterruptedError, errorFromAnswer } from '../errors.js';
import { readEvents } from '../sse.js';
import { nonEmpty } from '../validate.js';
import { Resource, type WithRequestID } from './base.js';

export interface ChatMessage {
  role: string;
  content: unknown;
  [field: string]: unknown;
}

export interface ChatCreateParams {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  [field: string]: unknown;
}

export interface CallHeaders {
  /** Cost tags for this call (`X-Service-Tags`), up to 10. */
  tags?: string[];
  /** A client session id (`X-Session-Id`), for scores and logs. */
  sessionId?: string;
  /** Your own request id (`X-Request-Id`), to align logs. */
  requestId?: string;
}

export type ChatCompletion = WithRequestID<Record<string, unknown> & { choices: Array<Record<string, unknown>> }>;
export type ChatChunk = Record<string, unknown> & {
  choices: Array<{ delta: { content?: string | null; [k: string]: unknown }; [k: string]: unknown }>;
};

export function callHeaders(options: CallHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  if (options.tags) {
    if (
      !Array.isArray(options.tags) ||
      options.tags.length > 10 ||
      !options.tags.every((t) => typeof t === 'string' && t !== '' && !t.includes(','))
    ) {
      throw new TypeError('tags must be up to 10 non-empty strings without commas');
    }
    headers['x-service-tags'] = options.tags.join(',');
  }
  if (options.sessionId !== undefined) headers['x-session-id'] = nonEmpty('sessionId', options.sessionId);
  if (options.requestId !== undefined) headers['x-request-id'] = nonEmpty('requestId', options.requestId);
  return headers;
}

/**
 * The chunks of a streamed call. It ends cleanly only on `[DONE]`; a stream cut before it throws
 * StreamInterruptedError and is never replayed (the call may already be paid).
 */
export class ChatStream implements AsyncIterable<ChatChunk> {
  constructor(
    private readonly body: AsyncIterable<Uint8Array>,
    readonly requestID: string | undefined,
    readonly model: string | undefined,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<ChatChunk> {
    const requestID = this.requestID;
    try {
      for await (const { data } of readEvents(this.body)) {
        if (data === '[DONE]') return;
        let chunk: unknown;
        try {
          chunk = JSON.parse(data);
        } catch {
          throw new GatewayError('the stream carried an event that is not JSON', {
            code: 'invalid_response',
            ...(requestID !== undefined && { requestID }),
          });
        }
        const error = (chunk as { error?: { code?: unknown; message?: unknown } }).error;
        if (error && typeof error === 'object') {
          throw errorFromAnswer(
            0,
            typeof error.code === 'string' ? error.code : undefined,
            String(error.message ?? 'stream error'),
            requestID,
            chunk,
            undefined,
          );
        }
        yield chunk as ChatChunk;
      }
    } catch (err) {
      if (err instanceof GatewayError) throw err;
      throw new StreamInterruptedError(`the stream broke: ${(err as Error).message}`, {
        code: 'stream_interrupted',
        ...(requestID !== undefined && { requestID }),
      });
    }
    throw new StreamInterruptedError('the stream ended before its end marker', {
      code: 'stream_interrupted',
      ...(requestID !== undefined && { requestID }),
    });
  }
}

class Completions extends Resource {
  /** `POST /v1/chat/completions`; with `stream: true` an async iterable of chunks. */
  create(params: ChatCreateParams & { stream: true }, options?: CallHeaders): Promise<ChatStream>;
  create(params: ChatCreateParams & { stream?: false }, options?: CallHeaders): Promise<ChatCompletion>;
  async create(params: ChatCreateParams, options: CallHeaders = {}): Promise<ChatCompletion | ChatStream> {
    nonEmpty('model', params?.model);
    if (!Array.isArray(params.messages) || params.messages.length === 0)
      throw new TypeError('messages must be a non-empty array of {role, content}');
    const headers = callHeaders(options);
    if (params.stream) {
      const opened = await this.client.transport.stream('/v1/chat/completions', params, {
        ...this.client.authHeaders(),
        ...headers,
      });
      return new ChatStream(opened.body, opened.requestID, opened.headers.get('x-service-model') ?? undefined);
    }
    return this.request('POST', '/v1/chat/completions', { body: params, headers }) as Promise<ChatCompletion>;
  }
}

export class Chat {
  readonly completions: Completions;
  constructor(client: ConstructorParameters<typeof Completions>[0]) {
    this.completions = new Completions(client);
  }
}
