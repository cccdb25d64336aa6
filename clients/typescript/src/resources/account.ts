import { Resource, type WithRequestID } from './base.js';
import { nonEmpty } from '../validate.js';

const ESTIMATE_ENDPOINTS = ['chat/completions', 'images/generations', 'videos'];
const GROUPS = ['tag', 'model', 'key', 'day'];

/** `POST /v1/estimates`: calls no upstream and reserves nothing. */
export class Estimates extends Resource {
  create(params: {
    endpoint: string;
    payload: Record<string, unknown>;
  }): Promise<WithRequestID<{ estimated_micro_usd: number; is_free: boolean }>> {
    if (!ESTIMATE_ENDPOINTS.includes(params?.endpoint))
      throw new TypeError(`endpoint must be one of ${ESTIMATE_ENDPOINTS.join(', ')}`);
    if (!params.payload || typeof params.payload !== 'object')
      throw new TypeError('payload must be the request body of that endpoint');
    return this.request('POST', '/v1/estimates', { body: params });
  }
}

/** `GET /v1/key/usage`: the key's own caps, spend, limits, 30 days by model and 20 latest calls. */
export class KeyUsage extends Resource {
  get(): Promise<WithRequestID<Record<string, unknown>>> {
    return this.request('GET', '/v1/key/usage');
  }
}

/** The account's usage; needs a key whose owner turned usage access on. */
export class Usage extends Resource {
  report(params: { group_by: string; start: string; end: string }): Promise<WithRequestID<Record<string, unknown>>>;
  report(params: { group_by: string; start: string; end: string; format: 'csv' }): Promise<string>;
  async report(params: {
    group_by: string;
    start: string;
    end: string;
    format?: 'csv';
  }): Promise<WithRequestID<Record<string, unknown>> | string> {
    if (!GROUPS.includes(params?.group_by)) throw new TypeError(`group_by must be one of ${GROUPS.join(', ')}`);
    nonEmpty('start', params.start);
    nonEmpty('end', params.end);
    if (params.format !== undefined && params.format !== 'csv') throw new TypeError("format must be 'csv' or omitted");
    if (params.format === 'csv') {
      const answer = await this.client.transport.request('GET', '/v1/usage/report', {
        query: params,
        headers: this.client.authHeaders(),
      });
      return answer.text;
    }
    return this.request('GET', '/v1/usage/report', { query: params });
  }

  /** A page of request records; pass the page's `cursor` to go on. */
  logs(query: Record<string, string | number | undefined> = {}): Promise<WithRequestID<Record<string, unknown>>> {
    return this.request('GET', '/v1/usage/logs', { query });
  }
}

export interface ScoreParams {
  name: string;
  value: number;
  request_id?: string;
  session_id?: string;
  comment?: string;
}

/** `POST /v1/scores`: a second score with the same name replaces the value. */
export class Scores extends Resource {
  create(params: ScoreParams): Promise<WithRequestID<Record<string, unknown>>> {
    if ((params?.request_id === undefined) === (params?.session_id === undefined))
      throw new TypeError('give exactly one of request_id and session_id');
    if (typeof params.name !== 'string' || !/^[a-z0-9._-]{1,40}$/.test(params.name)) {
      throw new TypeError("name must be 1-40 characters of lower-case letters, digits, '.', '-' and '_'");
    }
    if (
      typeof params.value !== 'number' ||
      !Number.isFinite(params.value) ||
      params.value < -1_000_000 ||
      params.value > 1_000_000
    ) {
      throw new TypeError('value must be a number from -1000000 to 1000000');
    }
    return this.request('POST', '/v1/scores', { body: params });
  }
}
