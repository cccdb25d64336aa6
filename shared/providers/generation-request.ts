import { CLIENT_CODECS, CODECS } from '../protocols/codecs.js';
import type { CanonicalPart, CanonicalRequest, ChatProtocol, ClientProtocol } from '../protocols/canonical/types.js';
import type { ForwardedHeaders } from './chat-adapter.js';
import { openAiPassthroughBody } from './openai/chat.js';

/** Fetches an image URL for an upstream that reads only inline images; throws a GatewayError naming the field. */
export type ImageFetcher = (url: string, field: string) => Promise<{ mediaType: string; data: string }>;

// The fields the gateway reads to route and price a Messages or generateContent call: with one of
// them twice in a body, another parser could read another value, so such a body is re-serialised.
const PRICED_FIELDS: Record<'anthropic' | 'gemini', string[]> = {
  anthropic: ['"model"', '"max_tokens"', '"stream"'],
  gemini: ['"maxOutputTokens"', '"max_output_tokens"', '"generationConfig"', '"generation_config"'],
};

function unique(raw: Buffer, fields: string[]): boolean {
  const text = raw.toString('latin1');
  return fields.every((f) => {
    const first = text.indexOf(f);
    return first === -1 || text.indexOf(f, first + 1) === -1;
  });
}

/**
 * One client call as every upstream of its plan needs it: the client's own bytes for an upstream of
 * the same protocol (passed through untouched where nothing has to change), and the canonical form,
 * encoded for the upstream's protocol, for any other. The canonical form is built once, on first
 * need, and `prepare` builds it before the call is admitted, so a request that cannot be translated
 * is refused before anything is reserved.
 */
export class GenerationRequest {
  private canonicalForm: CanonicalRequest | undefined;
  /** The canonical form with image URLs fetched and inlined (generateContent upstreams). */
  private inlinedForm: CanonicalRequest | undefined;
  /** The body encoded for each other protocol, by protocol and output cap (the model is set per route). */
  private readonly encoded = new Map<string, Record<string, unknown>>();

  constructor(
    /** The client's protocol. */
    readonly protocol: ClientProtocol,
    public body: Record<string, unknown>,
    /** The client's bytes; undefined once the gateway changed the body. */
    public raw: Buffer | undefined,
    readonly stream: boolean,
    /** Headers forwarded to a same-protocol upstream (Messages: anthropic-version, anthropic-beta). */
    readonly forwarded: ForwardedHeaders | undefined,
  ) {}

  /** The body changed (routing fields removed, a prompt template applied): it is re-serialised from now on. */
  replaceBody(body: Record<string, unknown>): void {
    this.body = body;
    this.raw = undefined;
    this.canonicalForm = undefined;
    this.inlinedForm = undefined;
    this.encoded.clear();
  }

  canonical(target: ChatProtocol): CanonicalRequest {
    if (!this.canonicalForm) {
      this.canonicalForm = CLIENT_CODECS[this.protocol].requestToCanonical(this.body, target);
      this.canonicalForm.stream = this.stream;
    }
    return this.canonicalForm;
  }

  /** Readies the request for upstreams of these protocols; throws a 400 naming the field when it cannot be expressed in one of them. */
  async prepare(protocols: Iterable<ChatProtocol>, maxOutput: number, fetchImage: ImageFetcher): Promise<void> {
    for (const protocol of protocols) {
      if (protocol === this.protocol) continue;
      if (protocol === 'gemini' && !this.inlinedForm) this.inlinedForm = await inlineImages(this.canonical(protocol), fetchImage);
      this.bodyFor(protocol, 'model', maxOutput); // encoding is where inexpressible fields are refused
    }
  }

  /** The body for one upstream route. */
  bodyFor(protocol: ChatProtocol, upstreamModel: string, maxOutput: number): Buffer | string {
    if (protocol === this.protocol) return this.passthrough(upstreamModel);
    const memo = `${protocol}:${maxOutput}`;
    let body = this.encoded.get(memo);
    if (!body) {
      const canonical = protocol === 'gemini' ? (this.inlinedForm ?? this.canonical(protocol)) : this.canonical(protocol);
      // Messages requires max_tokens: without the client's own it gets the cap the call was reserved for.
      const request = protocol === 'anthropic' && canonical.maxTokens === undefined ? Object.assign({}, canonical, { maxTokens: maxOutput }) : canonical;
      body = CODECS[protocol].requestFromCanonical(request, '');
      this.encoded.set(memo, body);
    }
    // generateContent names the model in its path, the others in the body (first, as they write it).
    return JSON.stringify(protocol === 'gemini' ? body : Object.assign({ model: upstreamModel }, body, { model: upstreamModel }));
  }

  private passthrough(upstreamModel: string): Buffer | string {
    if (this.protocol === 'responses') throw new Error('no upstream speaks Responses');
    if (this.protocol === 'openai') return openAiPassthroughBody(upstreamModel, this);
    const raw = this.raw;
    if (this.protocol === 'gemini') return raw && unique(raw, PRICED_FIELDS.gemini) ? raw : JSON.stringify(this.body);
    if (raw && this.body.model === upstreamModel && unique(raw, PRICED_FIELDS.anthropic)) return raw;
    const body: Record<string, unknown> = Object.assign({}, this.body);
    body.model = upstreamModel;
    return JSON.stringify(body);
  }
}

/** A copy of the request whose image URLs are fetched (through the safe fetcher) and inlined. */
async function inlineImages(request: CanonicalRequest, fetchImage: ImageFetcher): Promise<CanonicalRequest> {
  if (!request.messages.some((m) => m.parts.some((p) => p.type === 'image' && p.source.kind === 'url'))) return request;
  const messages = await Promise.all(
    request.messages.map(async (message, i) => ({
      role: message.role,
      parts: await Promise.all(
        message.parts.map(async (part, j): Promise<CanonicalPart> => {
          if (part.type !== 'image' || part.source.kind !== 'url') return part;
          const image = await fetchImage(part.source.url, `messages[${i}].content[${j}]`);
          return { type: 'image', source: { kind: 'base64', mediaType: image.mediaType, data: image.data } };
        }),
      ),
    })),
  );
  return Object.assign({}, request, { messages });
}
