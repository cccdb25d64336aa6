import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { pipeline, Readable } from 'node:stream';
import {
  assertObjectKey,
  countBytes,
  RangeNotSatisfiable,
  type ByteRange,
  type ObjectStore,
  type PresignPutOptions,
  type PutOptions,
} from './object-store.js';

export interface S3StoreConfig {
  driver: 's3';
  /** Any S3-compatible endpoint (MinIO, s3rver); undefined means AWS itself. */
  endpoint?: string | undefined;
  region: string;
  bucket: string;
  /** Both unset: the SDK's default chain (environment, instance role...). */
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  /** `endpoint/bucket/key` URLs; most S3-compatible servers need it. */
  forcePathStyle: boolean;
  /** Multipart part size in bytes; S3's minimum and the default is 5 MiB. */
  partSize?: number;
  /** Parts uploaded at once; memory held is about partSize × (queueSize + 1). Default 3. */
  queueSize?: number;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;

/** Objects in one S3 bucket, reached only by the gateway: links to them are served through it. */
export function createS3Store(config: S3StoreConfig): ObjectStore {
  const client = new S3Client({
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle,
    credentials:
      config.accessKeyId && config.secretAccessKey
        ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey }
        : undefined,
    // The SDK's default CRC trailers (aws-chunked bodies, checksums baked into presigned URLs) are
    // not understood by every S3-compatible server; checksums stay on where an API requires them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = config.bucket;
  const partSize = Math.max(config.partSize ?? MIN_PART_SIZE, MIN_PART_SIZE);
  const queueSize = config.queueSize ?? 3;

  return {
    driver: 's3',

    async ensureReady() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
        return;
      } catch (err) {
        if (status(err) !== 404) throw err;
      }
      try {
        await client.send(new CreateBucketCommand({ Bucket }));
      } catch (err) {
        // Another process created it first.
        if (!(err instanceof S3ServiceException && err.name === 'BucketAlreadyOwnedByYou')) throw err;
      }
    },

    async put(key: string, body: Readable | Buffer, options: PutOptions) {
      assertObjectKey(key);
      const counter = countBytes(options.contentLength);
      // pipeline carries a failure either way: a failing source fails the upload, a failed upload
      // stops the source.
      const Body = pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, counter, () => {});
      // lib-storage reads one part at a time and aborts the multipart upload when the stream fails.
      const upload = new Upload({
        client,
        params: { Bucket, Key: key, Body, ContentType: options.contentType },
        partSize,
        queueSize,
      });
      try {
        await upload.done();
      } catch (err) {
        Body.destroy();
        throw err;
      }
      return { size: counter.bytes };
    },

    async get(key: string, range?: ByteRange) {
      assertObjectKey(key);
      if (
        range &&
        !(Number.isSafeInteger(range.start) && range.start >= 0 && (range.end ?? range.start) >= range.start)
      ) {
        throw new RangeNotSatisfiable();
      }
      const Range = range ? `bytes=${range.start}-${range.end ?? ''}` : undefined;
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: key, Range }));
        const length = out.ContentLength ?? 0;
        const contentType = out.ContentType ?? 'application/octet-stream';
        const body = out.Body as Readable;
        if (!range) return { body, size: length, length, contentType };
        if (out.ContentRange)
          return {
            body,
            size: Number(out.ContentRange.split('/')[1]),
            length,
            contentType,
            contentRange: out.ContentRange,
          };
        // A server that ignores Range sends the whole object: right only if that is what was asked.
        if (range.start !== 0 || (range.end !== undefined && range.end < length - 1)) {
          body.destroy();
          throw new Error('the S3 server ignored a Range request');
        }
        return { body, size: length, length, contentType, contentRange: `bytes 0-${length - 1}/${length}` };
      } catch (err) {
        if (isNoSuchKey(err)) return undefined;
        if (status(err) === 416) throw new RangeNotSatisfiable();
        throw err;
      }
    },

    async head(key: string) {
      assertObjectKey(key);
      try {
        const out = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return { size: out.ContentLength ?? 0, contentType: out.ContentType ?? 'application/octet-stream' };
      } catch (err) {
        if (isNoSuchKey(err)) return undefined;
        throw err;
      }
    },

    async delete(key: string) {
      assertObjectKey(key);
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },

    async presignPut(key: string, options: PresignPutOptions) {
      assertObjectKey(key);
      const command = new PutObjectCommand({
        Bucket,
        Key: key,
        ContentType: options.contentType,
        ContentLength: options.contentLength,
      });
      const signed = new Set(['content-type', ...(options.contentLength === undefined ? [] : ['content-length'])]);
      const url = await getSignedUrl(client, command, { expiresIn: options.expiresInSeconds, signableHeaders: signed });
      return { url, headers: { 'content-type': options.contentType } };
    },

    close() {
      client.destroy();
    },
  };
}

function status(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

function isNoSuchKey(err: unknown): boolean {
  return (
    status(err) === 404 || (err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.name === 'NotFound'))
  );
}
