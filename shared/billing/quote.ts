import type { z } from 'zod';
import type { CatalogModel, Endpoint } from '../catalog/index.js';
import { badRequest } from '../errors.js';
import { chatRequestSchema, maxOutputTokens } from '../protocols/openai/chat-request.js';
import { imageGenerationSchema } from '../protocols/images/generation-request.js';
import { videoCreateSchema } from '../protocols/videos/create-request.js';
import { parseOrThrow } from '../validation.js';
import { promptTokenBound } from './prompt-tokens.js';
import { scaledTokenPrice, variantPrice } from './pricing.js';

export const QUOTABLE = ['chat/completions', 'images/generations', 'videos'] as const;
export type QuotableEndpoint = (typeof QUOTABLE)[number];

/** Validates a payload as its endpoint would and returns its model id (for the pipeline's step 4). */
export function payloadModel(endpoint: QuotableEndpoint, payload: unknown): string {
  if (endpoint === 'chat/completions') return parseWithPrefix(chatRequestSchema, payload).model;
  if (endpoint === 'images/generations') return parseWithPrefix(imageGenerationSchema, payload).model;
  return parseWithPrefix(videoCreateSchema, payload).model;
}

/**
 * The price of a call before it is made, in scaled micro-USD (see finalizeCost): for chat, the
 * prompt's token bound (the same as the reservation's, prompt-tokens.ts) and the most output the call allows (every answer of `n`); for images, per image
 * of the size; for videos, per second of the resolution (with or without audio).
 */
export function scaledQuote(endpoint: QuotableEndpoint, model: CatalogModel, payload: unknown): number {
  if (model.free) return 0;
  switch (endpoint) {
    case 'chat/completions': {
      const req = parseWithPrefix(chatRequestSchema, payload);
      const inputTokens = promptTokenBound(req, model, Buffer.byteLength(JSON.stringify(req)));
      return scaledTokenPrice(model, {
        inputTokens,
        outputTokens: maxOutputTokens(req, model.max_output_tokens) * (req.n ?? 1),
        cachedTokens: 0,
      });
    }
    case 'images/generations': {
      const req = parseWithPrefix(imageGenerationSchema, payload);
      const quality = (payload as { quality?: unknown }).quality;
      return (
        (imagePrice(model, req.size, typeof quality === 'string' ? quality : undefined) * req.n +
          model.pricing.per_request) *
        1_000_000
      );
    }
    case 'videos': {
      const req = parseWithPrefix(videoCreateSchema, payload);
      const { duration, resolution } = videoShape(model, req.duration, req.resolution);
      const rate = req.generate_audio
        ? (model.pricing.per_second_with_audio ?? model.pricing.per_second)
        : model.pricing.per_second;
      const perSecond = variantPrice(rate, resolution);
      if (perSecond === undefined && rate !== undefined) throw offered('resolution', resolution, Object.keys(rate));
      return Math.round(((perSecond ?? 0) * duration + model.pricing.per_request) * 1_000_000);
    }
  }
}

/**
 * The price of one image of this size and quality: `per_image` is one price, or prices by
 * variant — `<quality>:<size>` first (`hd:1024x1024`), then `<size>`. A size (or quality) the
 * model has no price for answers 400 naming it, with what it offers.
 */
export function imagePrice(model: CatalogModel, size: string, quality: string | undefined): number {
  const prices = model.pricing.per_image;
  if (prices === undefined) return 0;
  if (typeof prices === 'number') return prices;
  if (quality !== undefined) {
    // The qualities priced apart, and OpenAI's defaults, which take the plain `<size>` price.
    const qualities = new Set([
      'auto',
      'standard',
      ...Object.keys(prices)
        .filter((k) => k.includes(':'))
        .map((k) => k.slice(0, k.indexOf(':'))),
    ]);
    if (!qualities.has(quality)) throw offered('quality', quality, [...qualities]);
  }
  const priced = (quality === undefined ? undefined : prices[`${quality}:${size}`]) ?? prices[size];
  if (priced !== undefined) return priced;
  const sizes = sizesOf(prices);
  if (!sizes.includes(size)) throw offered('size', size, sizes);
  throw offered(
    'quality',
    quality ?? '(none)',
    Object.keys(prices)
      .filter((k) => k.endsWith(`:${size}`))
      .map((k) => k.split(':')[0]!),
  );
}

function sizesOf(prices: Record<string, number>): string[] {
  return [...new Set(Object.keys(prices).map((k) => k.slice(k.indexOf(':') + 1)))];
}

/** The duration and resolution a video call gets: as asked, which the model must offer, or its first offer. */
export function videoShape(model: CatalogModel, duration: number | undefined, resolution: string | undefined) {
  const d = duration ?? model.durations?.[0];
  const r = resolution ?? model.resolutions?.[0];
  if (d === undefined) throw badRequest('required: this model offers no default duration', 'duration');
  if (r === undefined) throw badRequest('required: this model offers no default resolution', 'resolution');
  if (model.durations && !model.durations.includes(d))
    throw offered('duration', String(d), model.durations.map(String));
  if (model.resolutions && !model.resolutions.includes(r)) throw offered('resolution', r, model.resolutions);
  return { duration: d, resolution: r };
}

function offered(field: string, value: string, options: string[]) {
  return badRequest(`'${value}' is not offered by this model (offered: ${options.join(', ')})`, field);
}

function parseWithPrefix<S extends z.ZodType>(schema: S, payload: unknown): z.infer<S> {
  try {
    return parseOrThrow(schema, payload);
  } catch (err) {
    const e = err as { param?: string; message: string };
    // The payload is nested in the estimate's body: name the field where the caller wrote it.
    throw badRequest(e.message.replace(/'([^']+)'/, "'payload.$1'"), e.param ? `payload.${e.param}` : 'payload');
  }
}

export type { Endpoint };
