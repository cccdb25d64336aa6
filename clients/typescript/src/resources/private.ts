import { GatewayError, NotFoundError } from '../errors.js';
import { nonEmpty, printableKey } from '../validate.js';
import { attach, Resource, type WithRequestID } from './base.js';
import { ChatStream } from './chat.js';

export type PrivateResult = WithRequestID<{
  task_id: string;
  client_request_id: string | null;
  status: string;
  result?: unknown;
  error?: unknown;
}>;

export interface PrivateCallParams {
  clientRequestId: string;
  model: string;
  /** The body of the matching standard call (chat messages and parameters, video or image task fields). */
  input: Record<string, unknown>;
  stream?: boolean;
  /** How long to wait for the end, ms (0-120000). */
  waitMs?: number;
}

/** The private protocol under `/server`: the `ak-` key and `clientRequestId` travel in the body. */
export class Private extends Resource {
  call(params: PrivateCallParams & { stream: true }): Promise<ChatStream>;
  call(params: PrivateCallParams & { stream?: false }): Promise<PrivateResult>;
  async call(params: PrivateCallParams): Promise<PrivateResult | ChatStream> {
    const body: Record<string, unknown> = {
      ...this.keyBody(),
      clientRequestId: printableKey('clientRequestId', params?.clientRequestId),
      model: nonEmpty('model', params.model),
    };
    if (!params.input || typeof params.input !== 'object')
      throw new TypeError('input must be the body of the matching standard call');
    body.input = params.input;
    if (params.waitMs !== undefined) {
      if (!Number.isInteger(params.waitMs) || params.waitMs < 0 || params.waitMs > 120_000)
        throw new TypeError('waitMs must be an integer from 0 to 120000');
      body.wait_ms = params.waitMs;
    }
    if (params.stream) {
      body.stream = true;
      const opened = await this.client.transport.stream('/server/v1/call', body, {});
      return new ChatStream(opened.body, opened.requestID, opened.headers.get('x-service-model') ?? undefined);
    }
    return this.envelope('/server/v1/call', body);
  }

  /** The job's current state; a miss (unknown, or another owner's) throws NotFoundError. */
  getResult(by: { clientRequestId: string } | { taskId: string }): Promise<PrivateResult> {
    return this.envelope('/server/v1/getResult', this.lookup(by));
  }

  cancel(by: { clientRequestId: string } | { taskId: string }): Promise<PrivateResult> {
    return this.envelope('/server/v1/cancel', this.lookup(by));
  }

  private lookup(by: { clientRequestId?: string; taskId?: string }): Record<string, unknown> {
    if ((by?.clientRequestId === undefined) === (by?.taskId === undefined))
      throw new TypeError('give exactly one of clientRequestId and taskId');
    return by.taskId !== undefined
      ? { ...this.keyBody(), taskId: nonEmpty('taskId', by.taskId) }
      : { ...this.keyBody(), clientRequestId: printableKey('clientRequestId', by.clientRequestId) };
  }

  private keyBody(): { apiKey: string } {
    if (!this.client.apiKey.startsWith('ak-')) throw new TypeError('the private protocol takes a private key (ak-…)');
    return { apiKey: this.client.apiKey };
  }

  // legacy_v1 keys answer the same JSON bytes as text/plain, and a miss as an empty body.
  private async envelope(path: string, body: Record<string, unknown>): Promise<PrivateResult> {
    const answer = await this.client.transport.request('POST', path, { body });
    const requestID = answer.requestID;
    const ids = { status: answer.status, ...(requestID !== undefined && { requestID }) };
    if (answer.text.trim() === '') throw new NotFoundError('task not found', { ...ids, code: 'not_found' });
    let envelope: { code?: unknown; message?: unknown; data?: unknown; error_code?: unknown };
    try {
      envelope = JSON.parse(answer.text);
    } catch {
      throw new GatewayError('the gateway answered a body that is not JSON', { ...ids, code: 'invalid_response' });
    }
    if (envelope.code === -1)
      throw new NotFoundError(String(envelope.message ?? 'task not found'), {
        ...ids,
        code: 'not_found',
        body: envelope,
      });
    if (envelope.code !== 0)
      throw new GatewayError(String(envelope.message ?? 'unexpected answer'), {
        ...ids,
        code: String(envelope.error_code ?? envelope.code),
        body: envelope,
      });
    return attach(envelope.data as object, { requestID }) as PrivateResult;
  }
}
