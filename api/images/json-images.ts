import { randomBytes } from 'node:crypto';
import type { Middleware } from 'koa';
import { checkImageCount } from '../../shared/assets/fetch-images.js';
import { checkInlineImages } from '../../shared/assets/inline-images.js';
import { externalImageUrls, rehostExternalImages } from '../../shared/assets/rehost.js';
import { resolveAssetReferences } from '../../shared/assets/resolve-references.js';
import { finalizeCost } from '../../shared/billing/pricing.js';
import { imagePrice } from '../../shared/billing/quote.js';
import { GatewayError, isGatewayError } from '../../shared/errors.js';
import { discountOf } from '../../shared/gateway/pipeline.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { sendImages, type ImageCall } from '../../shared/providers/openai/images.js';
import { streamResult } from '../../shared/providers/tasks/http.js';
import {
  jsonImageEditSchema,
  jsonImageGenerationSchema,
  type JsonImageGeneration,
} from '../../shared/protocols/images/json-images.js';
import type { CallState, RoutedResponse } from '../../shared/routing/fallback.js';
import type { CatalogModel } from '../../shared/catalog/index.js';
import { MeterChain } from '../../shared/generation/meter-chain.js';
import { admitAndSend, tryModels, type AdmittedDispatch } from '../../shared/generation/route-loop.js';
import { withDefaultModel } from '../../shared/routing/default-model.js';
import { planModels } from '../../shared/routing/plan.js';
import { parseProviderPreferences } from '../../shared/routing/provider-preferences.js';
import { linkUrl, signLink } from '../../shared/storage/signed-links.js';
import { callTags } from '../../shared/usage/tags.js';
import { parseOrThrow } from '../../shared/validation.js';
import { readJsonObject } from '../middleware/read-json.js';
import { authenticateRequest } from '../http/credential.js';
import { baseUrl } from '../videos/task-responses.js';

/** An image link works this long: use it at once (it is the account's, and short-lived by design). */
const LINK_TTL_MS = 60 * 60 * 1000;
/** The most bytes one returned image may have (mirrored before the answer). */
const MAX_IMAGE_BYTES = 50 * 1024 * 1024;

const invalidAnswer = () =>
  new GatewayError('upstream_error', 502, 'the upstream provider sent an invalid images response');

interface UpstreamImage {
  url?: unknown;
  b64_json?: unknown;
  revised_prompt?: unknown;
}

/**
 * JSON image generation and editing (`POST /v1/images/generations`, `/v1/images/edits`): priced per
 * image by size and quality from the catalog, reserved for `n` images before the call and charged
 * for the images delivered. Every image the upstream returns is kept in object storage before the
 * answer (a URL is downloaded, base64 decoded): `response_format: url` answers a short-lived,
 * owner-scoped link of the gateway's, `b64_json` the bytes inline. Edits take reference images as
 * https URLs, data URIs or `asset://` references; a multipart edit answers 501.
 */
export function jsonImages(services: GatewayServices, operation: ImageCall['operation']): Middleware {
  return async (ctx) => {
    if (ctx.is('multipart/form-data'))
      throw new GatewayError(
        'not_implemented',
        501,
        'multipart image edits are not implemented: send JSON with images: [{image_url}] (https, data URI or asset://)',
      );
    const key = await authenticateRequest(ctx, services);
    const endpoint = operation === 'edits' ? 'images/edits' : 'images/generations';
    // The meter of the attempt running now (a fallback model's attempt has its own).
    const chain = new MeterChain(
      services,
      key,
      endpoint,
      null,
      ctx.state.requestId as string,
      ctx.state.callId as string,
      callTags(ctx.get('x-service-tags') || undefined, key.tags),
    );
    try {
      const body = await readJsonObject(ctx, services.config.http.bodyLimitBytes);
      const { provider, ...fields } = withDefaultModel(body.value, key);
      const request: JsonImageGeneration = parseOrThrow(
        operation === 'edits' ? jsonImageEditSchema : jsonImageGenerationSchema,
        fields,
      );
      // Reference images given inline are checked like uploads before anything is reserved.
      await checkInlineImages(request, body.raw);
      const plan = await planModels(
        services.routing,
        key,
        request.model,
        endpoint,
        parseProviderPreferences(provider, services.catalog),
      );
      const links = {
        db: services.db,
        storage: services.storage,
        linkSecret: services.linkSecret,
        baseUrl: baseUrl(services, ctx),
        ttlMs: LINK_TTL_MS,
        now: services.clock.now(),
        limits: services.config.imageFetch,
      };
      const discount = discountOf(services, key);
      const price = (model: CatalogModel, images: number) =>
        finalizeCost(
          (imagePrice(model, request.size, request.quality) * images + model.pricing.per_request) * 1_000_000,
          discount,
        );
      const state: CallState = { upstream: undefined, clientGone: false };
      const dispatch: AdmittedDispatch<ImageCall> & { model(model: CatalogModel): void } = {
        state,
        until: 'whole',
        send: sendImages,
        tokens: 0,
        price(model) {
          if (!model.accepts_urls) checkImageCount(externalImageUrls(request), links.limits);
          return price(model, request.n);
        },
        limitHeaders: (headers) => ctx.set(headers),
        // Admitted: the upstream gets signed links for asset references, and the gateway's copies of
        // external URLs where it cannot fetch them (a refused fetch gives the reservation back).
        async admitted(model) {
          const external = model.accepts_urls ? request : await rehostExternalImages(links, key.userId, request);
          const upstreamBody = await resolveAssetReferences(links, key, external);
          // Images always come back to the gateway first (it keeps them and answers with its own links),
          // so the client's response_format stays here: the upstream answers in its default form.
          const forwarded: Record<string, unknown> = Object.assign({}, upstreamBody as Record<string, unknown>);
          delete forwarded.response_format;
          return { operation, body: forwarded };
        },
        model: (model) => ctx.set('X-Service-Model', model.id),
      };
      const { routed, model, meter } = await tryModels(
        plan.models,
        chain,
        state,
        (model, attemptMeter) => admitAndSend(services, attemptMeter, model, plan.preferences, dispatch),
        dispatch,
      );
      const images = await keepImages(services, routed, key.userId, meter.callId);
      await meter.finish({
        statusCode: 200,
        provider: routed.upstream.provider.id,
        upstreamModel: routed.upstreamModel,
        account: routed.account,
        fixedCost: price(model, images.length),
        usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0 },
      });
      const expiresAt = services.clock.now() + LINK_TTL_MS;
      ctx.body = {
        created: Math.floor(services.clock.now() / 1000),
        data: images.map((image) => {
          const item: Record<string, unknown> =
            request.response_format === 'b64_json'
              ? { b64_json: image.bytes.toString('base64') }
              : {
                  url: linkUrl(
                    links.baseUrl,
                    signLink(
                      { objectKey: image.objectKey, userId: key.userId, expiresAt, contentType: image.contentType },
                      services.linkSecret,
                    ),
                  ),
                };
          if (typeof image.revisedPrompt === 'string') item.revised_prompt = image.revisedPrompt;
          return item;
        }),
      };
    } catch (err) {
      await chain.meter.finish({
        statusCode: isGatewayError(err) ? err.status : 500,
        errorCode: isGatewayError(err) ? err.code : 'internal_error',
      });
      throw err;
    } finally {
      await chain.meter.close();
    }
  };
}

interface KeptImage {
  objectKey: string;
  bytes: Buffer;
  contentType: string;
  revisedPrompt: unknown;
}

/** Each returned image, decoded or downloaded, stored under the account before the client hears of it. */
async function keepImages(
  services: GatewayServices,
  routed: RoutedResponse,
  userId: string,
  callId: string,
): Promise<KeptImage[]> {
  let data: UpstreamImage[];
  try {
    data = (JSON.parse(routed.response.received().toString('utf8')) as { data?: UpstreamImage[] }).data!;
  } catch {
    throw invalidAnswer();
  }
  if (!Array.isArray(data) || data.length === 0) throw invalidAnswer();
  const kept: KeptImage[] = [];
  for (const [i, image] of data.entries()) {
    let bytes: Buffer;
    let contentType = 'image/png';
    if (typeof image.b64_json === 'string') bytes = Buffer.from(image.b64_json, 'base64');
    else if (typeof image.url === 'string') {
      const download = await streamResult(routed.upstream, image.url).catch(() => Promise.reject(invalidAnswer()));
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of download.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_IMAGE_BYTES) throw invalidAnswer();
        chunks.push(chunk);
      }
      bytes = Buffer.concat(chunks, size);
      contentType = download.contentType.split(';')[0]!.trim();
    } else throw invalidAnswer();
    if (bytes.length === 0) throw invalidAnswer();
    const objectKey = `images/${userId}/${callId}-${i}-${randomBytes(4).toString('hex')}.png`;
    await services.storage.put(objectKey, bytes, { contentType });
    kept.push({ objectKey, bytes, contentType, revisedPrompt: image.revised_prompt });
  }
  return kept;
}
