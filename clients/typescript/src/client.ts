import { Estimates, KeyUsage, Scores, Usage } from './resources/account.js';
import { Assets } from './resources/assets.js';
import { Chat } from './resources/chat.js';
import { Private } from './resources/private.js';
import { Videos } from './resources/videos.js';
import { Transport, type RetryOptions } from './transport.js';

export interface GatewayOptions extends RetryOptions {
  /** The API key (`sk-…`, or `ak-…` for the private protocol); default `GATEWAY_API_KEY`. Server-side only. */
  apiKey?: string;
  /** The gateway origin: https, or plain http only for localhost, 127.0.0.1 and ::1; default `GATEWAY_BASE_URL`. */
  baseURL?: string;
  /** Per-request time limit for non-streamed calls, ms. Default 600000. */
  timeout?: number;
}

/**
 * A client for the model gateway, for server-side use only (the key is a secret). GET requests
 * are retried (`maxRetries`, default 2; 0 turns it off); paid POSTs and interrupted streams never
 * are. Redirects are refused.
 */
export class Gateway {
  readonly chat: Chat;
  readonly videos: Videos;
  readonly assets: Assets;
  readonly estimates: Estimates;
  readonly keyUsage: KeyUsage;
  readonly usage: Usage;
  readonly scores: Scores;
  readonly private: Private;
  /** @internal */
  readonly transport: Transport;
  /** @internal */
  declare readonly apiKey: string;

  constructor(options: GatewayOptions = {}) {
    const apiKey = options.apiKey ?? process.env.GATEWAY_API_KEY;
    if (typeof apiKey !== 'string' || apiKey.trim() === '')
      throw new TypeError('apiKey is required (or set GATEWAY_API_KEY)');
    const baseURL = options.baseURL ?? process.env.GATEWAY_BASE_URL;
    if (baseURL === undefined) throw new TypeError('baseURL is required (or set GATEWAY_BASE_URL)');
    this.transport = new Transport(baseURL, options.timeout ?? 600_000, options);
    // Not enumerable: the key never shows up when the client is logged or inspected.
    Object.defineProperty(this, 'apiKey', { value: apiKey, enumerable: false });
    this.chat = new Chat(this);
    this.videos = new Videos(this);
    this.assets = new Assets(this);
    this.estimates = new Estimates(this);
    this.keyUsage = new KeyUsage(this);
    this.usage = new Usage(this);
    this.scores = new Scores(this);
    this.private = new Private(this);
  }

  /** @internal A private (ak-) key only ever travels in the private protocol's body. */
  authHeaders(): Record<string, string> {
    return this.apiKey.startsWith('ak-') ? {} : { authorization: `Bearer ${this.apiKey}` };
  }
}
