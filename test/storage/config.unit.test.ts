import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkStorageEnv, storageConfig, storageEnvShape } from '../../shared/storage/config.js';

const schema = z.object(storageEnvShape).superRefine(checkStorageEnv);
const parse = (env: Record<string, string>) => storageConfig(schema.parse(env), '/var/lib/gateway');

describe('storage config', () => {
  it('defaults to the local driver under DATA_DIR', () => {
    expect(parse({})).toEqual({
      objects: { driver: 'local', directory: '/var/lib/gateway/objects' },
      linkSecret: undefined,
      linkTtlSeconds: 3600,
    });
  });

  it('switches to S3 when a bucket is set, path-style for a custom endpoint', () => {
    const { objects } = parse({
      S3_BUCKET: 'media',
      S3_ENDPOINT: 'http://minio:9000',
      S3_ACCESS_KEY_ID: 'k',
      S3_SECRET_ACCESS_KEY: 's',
    });
    expect(objects).toEqual({
      driver: 's3',
      endpoint: 'http://minio:9000',
      region: 'us-east-1',
      bucket: 'media',
      accessKeyId: 'k',
      secretAccessKey: 's',
      forcePathStyle: true,
      partSize: 8 * 1024 * 1024,
      queueSize: 3,
    });
    expect(parse({ S3_BUCKET: 'media' }).objects).toMatchObject({ forcePathStyle: false, endpoint: undefined });
    expect(
      parse({ S3_BUCKET: 'media', S3_FORCE_PATH_STYLE: 'false', S3_ENDPOINT: 'http://x:1' }).objects,
    ).toMatchObject({ forcePathStyle: false });
  });

  it('lists every storage problem at once, pairs included', () => {
    const result = schema.safeParse({
      STORAGE_DRIVER: 's3',
      S3_ACCESS_KEY_ID: 'k',
      S3_PART_SIZE_MB: '1',
      STORAGE_LINK_SECRET: 'short',
    });
    const paths = result.error?.issues.map((i) => i.path.join('.')).sort();
    expect(paths).toEqual(['S3_BUCKET', 'S3_PART_SIZE_MB', 'S3_SECRET_ACCESS_KEY', 'STORAGE_LINK_SECRET']);
  });
});
