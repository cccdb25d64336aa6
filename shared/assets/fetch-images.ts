import { badRequest, GatewayError, isGatewayError } from '../errors.js';
import { checkForwardedImage, requireImageType } from './forwarded-image.js';
import { safeFetch, type SafeFetchOptions } from './safe-fetch.js';

/** What the gateway fetches of the image URLs of one request (IMAGE_FETCH_*). */
export interface ImageFetchLimits {
  /** Image URLs one request may ask the gateway to fetch. */
  maxImages: number;
  /** Bytes of one image. */
  maxBytes: number;
  /** Bytes of all images of one request together. */
  totalBytes: number;
  /** Fetches of one request running at a time. */
  concurrency: number;
  /** Development and tests: addresses fetched from although private, over http too. */
  trusted: readonly string[];
  /** The image types the model takes (read from the bytes); absent: every forwarded type. */
  types?: readonly string[];
}

/** An image URL of a request and the field it stands in (named by a refusal). */
export interface ImageRef {
  url: string;
  field: string;
}

export interface FetchedImage {
  bytes: Buffer;
  contentType: string;
}

const TIMEOUT_MS = 15_000;
const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 100) / 100} MiB`;

/** Refuses a request with more image URLs than the gateway fetches for one (400 naming the first one too many). */
export function checkImageCount(refs: readonly ImageRef[], limits: ImageFetchLimits): void {
  if (refs.length <= limits.maxImages) return;
  throw badRequest(
    `the gateway fetches at most ${limits.maxImages} image URLs of one request for this model; this one has ${refs.length}`,
    refs[limits.maxImages]!.field,
  );
}

/**
 * The images of one request, in order, through the safe fetcher: at most `concurrency` at a time,
 * each at most `maxBytes`, all together at most `totalBytes`, so that what one request holds in
 * memory is bounded. The first refusal answers 400 naming its field; no new fetch starts after it.
 */
export async function fetchImages(
  refs: readonly ImageRef[],
  limits: ImageFetchLimits,
  extra?: Partial<SafeFetchOptions>,
): Promise<FetchedImage[]> {
  checkImageCount(refs, limits);
  const options: SafeFetchOptions = {
    maxBytes: limits.maxBytes,
    timeoutMs: TIMEOUT_MS,
    accept: ['image/'],
    ...(limits.trusted.length > 0 && { allowHttp: true, trusted: limits.trusted }),
    ...extra,
  };
  const fetched: FetchedImage[] = new Array<FetchedImage>(refs.length);
  let total = 0;
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < refs.length) {
      const i = next++;
      const ref = refs[i]!;
      try {
        const image = await safeFetch(ref.url, options);
        total += image.bytes.length;
        if (total > limits.totalBytes)
          throw badRequest(`the fetched images exceed ${mib(limits.totalBytes)} together at ${ref.field}`, ref.field);
        // Checked like an upload: the type the bytes are (not the server's label), at most 40 MP by the header.
        const checked = await checkForwardedImage(image.bytes, ref.field);
        if (limits.types) requireImageType(checked, limits.types, ref.field);
        fetched[i] = { bytes: image.bytes, contentType: checked.contentType };
      } catch (err) {
        failure ??=
          isGatewayError(err) && err.param === undefined
            ? new GatewayError(err.code, err.status, err.message, { param: ref.field })
            : err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limits.concurrency, refs.length) }, worker));
  if (failure !== undefined) throw failure;
  return fetched;
}
