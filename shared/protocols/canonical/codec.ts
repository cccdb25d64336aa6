import type { SseFrame } from './sse.js';
import type {
  CanonicalEvent,
  CanonicalRequest,
  CanonicalResponse,
  CanonicalUsage,
  ChatProtocol,
  ClientProtocol,
  StopReason,
} from './types.js';

/** Reads an upstream's stream, frame by frame, as canonical events. */
export interface StreamDecoder {
  frame(frame: SseFrame): CanonicalEvent[];
}

/** Writes canonical events as a client protocol's stream; `end` writes its closing frames. */
export interface StreamEncoder {
  event(event: CanonicalEvent): string;
  /** The frames that complete the stream (finish, usage, terminal marker): written after the call is settled. */
  end(stopReason: StopReason, usage: CanonicalUsage): string;
  /** The protocol's in-stream error event, where it depends on the stream (Responses numbers its events). */
  error?(code: string, message: string): string;
}

export interface StreamEncoderOptions {
  /** The model name the client sees. */
  model: string;
  /** Chat completions: the client asked for the usage chunk (`stream_options.include_usage`). */
  clientWantsUsage: boolean;
  /** The prompt's tokens as the gateway counted them, for protocols that announce input before the upstream does (Messages' `message_start`). */
  promptTokens?: number;
}

/** What the client side of a call needs of its protocol. */
export interface ClientCodec {
  readonly protocol: ClientProtocol;
  requestToCanonical(body: Record<string, unknown>, target: ChatProtocol): CanonicalRequest;
  responseFromCanonical(response: CanonicalResponse, model: string): unknown;
  streamEncoder(options: StreamEncoderOptions): StreamEncoder;
}

/** One protocol's translations to and from the canonical form, for both sides of a call. */
export interface ProtocolCodec extends ClientCodec {
  readonly protocol: ChatProtocol;
  /** A client's request (validated by its surface schema) → canonical; `target` names the upstream protocol for refusals. */
  requestToCanonical(body: Record<string, unknown>, target: ChatProtocol): CanonicalRequest;
  /** Canonical → the body this protocol's upstream takes. */
  requestFromCanonical(request: CanonicalRequest, upstreamModel: string): Record<string, unknown>;
  /** An upstream's whole answer → canonical (throws on a malformed one). */
  responseToCanonical(body: unknown): CanonicalResponse;
  /** Canonical → the whole answer this protocol's client expects. */
  responseFromCanonical(response: CanonicalResponse, model: string): unknown;
  streamDecoder(): StreamDecoder;
  streamEncoder(options: StreamEncoderOptions): StreamEncoder;
}
