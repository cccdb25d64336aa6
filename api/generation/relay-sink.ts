import type { Socket } from 'node:net';
import type { CatalogModel } from '../../shared/catalog/index.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { JsonAnswer } from '../../shared/generation/json-answer.js';
import type { TextCall } from '../../shared/generation/text-call.js';
import type { TextSink } from '../../shared/generation/text-sink.js';
import { streamErrorEvent } from '../../shared/protocols/error-bodies.js';
import type { CacheStatus } from '../../shared/response-cache/metrics.js';
import { answerFailure } from '../http/answer-failure.js';
import type { Exchange } from '../http/exchange.js';

const SSE_HEADERS = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
});

/**
 * The HTTP answer of a text call: a relayed SSE stream or a whole JSON body, and failures in the
 * client's protocol. A client that goes away at any point aborts the upstream request (and with it
 * the relay). `release` once the call ran.
 */
export class RelaySink implements TextSink {
  private held: Socket | null = null;
  private resume: (() => void) | undefined;

  constructor(
    protected readonly services: GatewayServices,
    protected readonly ex: Exchange,
    protected readonly call: TextCall,
  ) {
    ex.res.once('close', this.onClose);
  }

  private readonly onClose = () => {
    if (this.ex.res.writableEnded) return;
    const state = this.call.state;
    state.clientGone = true;
    state.upstream?.abort(new Error('the client closed the connection'));
  };

  limitHeaders(headers: Record<string, string>): void {
    const res = this.ex.res;
    for (const name in headers) res.setHeader(name, headers[name]!);
  }

  cacheStatus(status: CacheStatus): void {
    this.ex.res.setHeader('X-Service-Cache', status);
  }

  model(model: CatalogModel): void {
    this.ex.res.setHeader('X-Service-Model', model.id);
  }

  answer(answer: JsonAnswer): void {
    const res = this.ex.res;
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(answer.body),
    });
    res.end(answer.body);
  }

  open(resume: () => void): void {
    // Headers go out with the first event (one write, not two); Node sends them on the first write.
    this.ex.res.writeHead(200, SSE_HEADERS);
    this.resume = resume;
    this.ex.res.on('drain', resume);
  }

  chunk(bytes: Buffer): boolean {
    return this.ex.res.write(bytes);
  }

  hold(): void {
    // Node corks a response's writes only until the next tick; the socket's cork lasts until `end` (corks nest).
    this.held = this.ex.res.socket;
    this.held?.cork();
  }

  end(marker: string | Buffer): void {
    try {
      this.ex.res.end(marker);
    } finally {
      this.held?.uncork();
    }
  }

  interrupt(code: string, message: string, event: string | undefined): void {
    this.ex.res.end(event ?? streamErrorEvent(this.call.protocol, code, message));
  }

  fail(err: unknown): Promise<void> {
    return answerFailure(this.services, this.ex, this.call.key, err, this.call.protocol);
  }

  release(): void {
    this.ex.res.off('close', this.onClose);
    if (this.resume) this.ex.res.off('drain', this.resume);
  }
}
