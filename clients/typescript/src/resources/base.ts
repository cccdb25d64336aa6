import type { Gateway } from '../client.js';
import { parseJson, type CallOptions } from '../transport.js';

/** A JSON answer with the call's request id attached (not enumerable: the object stays wire-shaped). */
export type WithRequestID<T> = T & { readonly requestID?: string };

export function attach<T extends object>(value: T, extra: Record<string, unknown>): T {
  for (const [name, v] of Object.entries(extra)) Object.defineProperty(value, name, { value: v, enumerable: false });
  return value;
}

export abstract class Resource {
  constructor(protected readonly client: Gateway) {}

  protected async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: CallOptions = {},
  ): Promise<WithRequestID<T>> {
    const answer = await this.client.transport.request(method, path, {
      ...options,
      headers: { ...this.client.authHeaders(), ...options.headers },
    });
    const parsed = parseJson(answer);
    const value = (parsed && typeof parsed === 'object' ? parsed : { data: parsed }) as T & object;
    return attach(value, { requestID: answer.requestID }) as WithRequestID<T>;
  }
}
