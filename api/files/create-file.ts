import busboy from 'busboy';
import type { Context, Middleware } from 'koa';
import { countLines } from '../../shared/batches/line-counter.js';
import { fileObject, newFileId, fileObjectKey } from '../../shared/batches/files.js';
import { insertFile } from '../../shared/db/files.js';
import { badRequest, GatewayError, isGatewayError } from '../../shared/errors.js';
import type { GatewayServices } from '../../shared/gateway/services.js';
import { authenticateAndCount } from '../http/credential.js';

interface Uploaded {
  filename: string;
  bytes: number;
  lines: number;
}

/**
 * POST /v1/files (multipart `file`, `purpose=batch`): the file streamed to object storage as it
 * arrives — never held in memory — its bytes and lines counted on the way (the store commits
 * nothing past a limit). The official SDKs send `file` before `purpose`, so the purpose is checked
 * once the form has been read, and a refused upload's object is removed.
 */
export function createFile(services: GatewayServices): Middleware {
  return async (ctx) => {
    const key = await authenticateAndCount(ctx, services);
    if (!/^multipart\/form-data/i.test(ctx.get('content-type')))
      throw badRequest("send the file as multipart/form-data with the fields 'file' and 'purpose'", 'file');
    const id = newFileId();
    const objectKey = fileObjectKey(key.userId, id);
    const { fields, file } = await readForm(ctx, services, objectKey).catch(async (err: unknown) => {
      await services.storage.delete(objectKey).catch(() => undefined);
      throw err;
    });
    try {
      if (fields.purpose === undefined) throw badRequest("'purpose' is required", 'purpose');
      if (fields.purpose !== 'batch') throw badRequest("'purpose' must be 'batch'", 'purpose');
      if (!file) throw badRequest("'file' is required", 'file');
      if (file.lines === 0) throw badRequest('the file is empty', 'file');
    } catch (err) {
      if (file) await services.storage.delete(objectKey).catch(() => undefined);
      throw err;
    }
    const row = await insertFile(services.db, {
      id,
      user_id: key.userId,
      purpose: 'batch',
      filename: file.filename,
      bytes: file.bytes,
      lines: file.lines,
      object_key: objectKey,
      created_at: new Date(services.clock.now()),
    });
    ctx.body = fileObject(row);
  };
}

function readForm(
  ctx: Context,
  services: GatewayServices,
  objectKey: string,
): Promise<{ fields: Record<string, string>; file: Uploaded | undefined }> {
  const { maxFileBytes, maxFileLines } = services.config.batches;
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let stored: Promise<Uploaded> | undefined;
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      ctx.req.unpipe(form);
      ctx.req.resume();
      reject(err);
    };
    const form = busboy({ headers: ctx.req.headers, limits: { files: 1, fields: 20, fieldSize: 64 * 1024 } });
    form.on('field', (name, value) => {
      fields[name] = value;
    });
    form.on('file', (name, stream, info) => {
      if (name !== 'file' || stored) {
        stream.resume();
        return;
      }
      const counter = countLines(maxFileBytes, maxFileLines);
      // The limit's own error, whatever the store makes of the stream that failed under it.
      let limit: unknown;
      counter.on('error', (err) => {
        limit ??= err;
      });
      stream.on('error', (err) => counter.destroy(err));
      stream.pipe(counter);
      stored = services.storage
        .put(objectKey, counter, { contentType: 'application/jsonl' })
        .then(() => ({ filename: info.filename || 'upload.jsonl', bytes: counter.bytes, lines: counter.lines() }));
      // A limit passed stops reading the request at once (a 200 MB body is not read to its end).
      stored = stored.catch((err: unknown) => {
        throw limit ?? err;
      });
      stored.catch(fail);
    });
    form.on('error', (err) => fail(badRequest(`the multipart body could not be read: ${(err as Error).message}`)));
    form.on('close', () => {
      if (failed) return;
      if (!stored) return resolve({ fields, file: undefined });
      stored.then(
        (file) => resolve({ fields, file }),
        (err: unknown) =>
          fail(
            isGatewayError(err) ? err : new GatewayError('service_unavailable', 503, 'the file could not be stored'),
          ),
      );
    });
    ctx.req.pipe(form);
  });
}
