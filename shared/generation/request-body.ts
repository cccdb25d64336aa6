import { checkImageCount, fetchImages, type ImageFetchLimits, type ImageRef } from '../assets/fetch-images.js';
import { CLIENT_CODECS, CODECS } from '../protocols/codecs.js';
import type { CanonicalPart, CanonicalRequest, ChatProtocol, ClientProtocol } from '../protocols/canonical/types.js';
import { isRecord } from '../protocols/canonical/helpers.js';
import { field } from '../protocols/gemini/to-canonical.js';
import { messagesPassthroughBody } from '../providers/anthropic/passthrough.js';
import type { ForwardedHeaders } from '../providers/chat-adapter.js';
import { contentPassthroughBody } from '../providers/gemini/passthrough.js';
import { openAiPassthroughBody, type OutputCapField } from '../providers/openai/chat.js';
import { refuseUnpricedOptions } from '../providers/unpriced-options.js';
import type { Passage } from './passage.js';

/**
 * One client call as every upstream of its plan needs it: on a same-protocol passage the client's
 * own bytes (passed through untouched where nothing has to change: each protocol's
 * `*PassthroughBody` is the one check), on any other the canonical form encoded for the upstream's
 * protocol. The canonical form is built once, on first need, and `prepare` builds it before the
 * call is admitted, so a request that cannot be translated is refused before anything is reserved.
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
  ) {
    refuseUnpricedOptions(protocol, body);
  }

  /** The answers the call asks for (`n`, generateContent's `candidateCount`): each is reserved and capped alike. */
  get choices(): number {
    const body = this.body;
    const config = this.protocol === 'gemini' ? field(body, 'generationConfig') : undefined;
    const n = this.protocol === 'openai' ? body.n : isRecord(config) ? field(config, 'candidateCount') : undefined;
    return typeof n === 'number' && Number.isInteger(n) && n > 1 ? n : 1;
  }

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

  /**
   * Readies the request for translations into these protocols (passage.ts `translationsOf`), before
   * anything is reserved: throws a 400 naming the field when it cannot be expressed in one of them,
   * or when it has more image URLs than the gateway fetches for a generateContent upstream. Fetches
   * nothing (see fetchImages).
   */
  prepare(translations: readonly ChatProtocol[], maxOutput: number, images: ImageFetchLimits): void {
    for (const protocol of translations) {
      this.encode(protocol, maxOutput, undefined); // encoding is where inexpressible fields are refused
      if (protocol === 'gemini' && !this.inlinedForm) checkImageCount(imageUrls(this.canonical(protocol)), images);
    }
  }

  /**
   * Fetches the image URLs (through the safe fetcher) and inlines them for generateContent upstreams,
   * which read only inline images: run once the call is admitted, so that a call that may not run
   * fetches nothing.
   */
  async fetchImages(translations: readonly ChatProtocol[], images: ImageFetchLimits): Promise<void> {
    for (const protocol of translations) {
      if (protocol !== 'gemini' || this.inlinedForm) continue;
      this.inlinedForm = await inlineImages(this.canonical(protocol), images);
      for (const memo of [...this.encoded.keys()]) if (memo.startsWith('gemini:')) this.encoded.delete(memo);
    }
  }

  /** The body for one upstream route, held to `maxOutput` tokens an answer (in `capField` for an OpenAI upstream that names one). */
  bodyFor(passage: Passage, upstreamModel: string, maxOutput: number, capField?: OutputCapField): Buffer | string {
    if (passage.same) return this.passthrough(upstreamModel, maxOutput, capField);
    const protocol = passage.upstream;
    const body = this.encode(protocol, maxOutput, capField);
    // generateContent names the model in its path, the others in the body (first, as they write it).
    return JSON.stringify(
      protocol === 'gemini' ? body : Object.assign({ model: upstreamModel }, body, { model: upstreamModel }),
    );
  }

  /** The canonical form encoded for `protocol`, memoised by protocol and output cap (the model is set per route). */
  private encode(
    protocol: ChatProtocol,
    maxOutput: number,
    capField: OutputCapField | undefined,
  ): Record<string, unknown> {
    const memo = `${protocol}:${maxOutput}:${capField ?? ''}`;
    let body = this.encoded.get(memo);
    if (!body) {
      const canonical =
        protocol === 'gemini' ? (this.inlinedForm ?? this.canonical(protocol)) : this.canonical(protocol);
      // Every upstream is held to the cap the call was reserved for (the client's own, else the model's).
      const cap = Math.min(canonical.maxTokens ?? maxOutput, maxOutput);
      const request = canonical.maxTokens === cap ? canonical : Object.assign({}, canonical, { maxTokens: cap });
      body = CODECS[protocol].requestFromCanonical(request, '');
      if (protocol === 'openai' && capField === 'max_tokens') {
        body.max_tokens = body.max_completion_tokens;
        delete body.max_completion_tokens;
      }
      this.encoded.set(memo, body);
    }
    return body;
  }

  private passthrough(upstreamModel: string, maxOutput: number, capField: OutputCapField | undefined): Buffer | string {
    if (this.protocol === 'responses') throw new Error('no upstream speaks Responses');
    if (this.protocol === 'openai') return openAiPassthroughBody(upstreamModel, this, maxOutput, capField);
    if (this.protocol === 'gemini') return contentPassthroughBody(this, maxOutput);
    return messagesPassthroughBody(upstreamModel, this, maxOutput);
  }
}

/** The image URLs of a request, each with the field a refusal names. */
function imageUrls(request: CanonicalRequest): ImageRef[] {
  const refs: ImageRef[] = [];
  request.messages.forEach((message, i) => {
    message.parts.forEach((part, j) => {
      if (part.type === 'image' && part.source.kind === 'url')
        refs.push({ url: part.source.url, field: `messages[${i}].content[${j}]` });
    });
  });
  return refs;
}

/** A copy of the request whose image URLs are fetched (see fetchImages) and inlined. */
async function inlineImages(request: CanonicalRequest, images: ImageFetchLimits): Promise<CanonicalRequest> {
  const refs = imageUrls(request);
  if (refs.length === 0) return request;
  const fetched = await fetchImages(refs, images);
  let k = 0;
  const messages = request.messages.map((message) => ({
    role: message.role,
    parts: message.parts.map((part): CanonicalPart => {
      if (part.type !== 'image' || part.source.kind !== 'url') return part;
      const image = fetched[k++]!;
      return {
        type: 'image',
        source: { kind: 'base64', mediaType: image.contentType, data: image.bytes.toString('base64') },
      };
    }),
  }));
  return Object.assign({}, request, { messages });
}
