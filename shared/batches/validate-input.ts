import type { Readable } from 'node:stream';
import type { BatchValidationError } from '../db/batches-schema.js';
import { deleteLines, LinesCopy } from '../db/batch-lines-copy.js';
import type { Db } from '../db/index.js';
import { isGatewayError } from '../errors.js';
import { refuseNulInJson } from '../refuse-nul.js';
import { boundedLines } from './bounded-lines.js';
import { parseLineBody, type BatchEndpoint } from './endpoints.js';

/** Errors listed on a failed batch at most (the first ones, in file order). */
const MAX_ERRORS = 100;
const MAX_CUSTOM_ID = 512;

export interface Validated {
  lines: number;
  errors: BatchValidationError[];
}

const refusal = (line: number, code: string, message: string, param: string | null = null): BatchValidationError => ({
  code,
  message,
  param,
  line,
});

/**
 * The `validating` step: the input file read as a stream, line by line — never whole in memory,
 * nor more than `maxLineBytes` of one line (BODY_LIMIT_BYTES: a longer line is refused, as the
 * synchronous call refuses a larger body) — each line checked (JSON, a unique custom_id, `POST` to
 * the batch's endpoint, a body its synchronous call would accept: parseLineBody) and streamed to
 * the batch's lines as it is read (one COPY for the file: LinesCopy), committed at the end. A
 * model unknown to the catalog is not a file's fault: that line fails alone, in the error file.
 * With any refusal no line is kept, and the caller fails the batch naming the bad ones.
 */
export async function validateInput(
  db: Db,
  batch: { id: string; endpoint: BatchEndpoint },
  input: Readable,
  maxLineBytes: number,
): Promise<Validated> {
  const errors: BatchValidationError[] = [];
  const seen = new Set<string>();
  let line = 0;
  let lines = 0;
  // A validation run again after a crash starts from a clean slate.
  await deleteLines(db, batch.id);
  const copy = await LinesCopy.open(db);
  try {
    for await (const read of boundedLines(input, maxLineBytes)) {
      line++;
      if (read.text !== undefined && read.text.trim() === '') continue;
      const checked =
        read.text === undefined
          ? refusal(
              line,
              'body_too_large',
              `the line is ${read.bytes} bytes, over the ${maxLineBytes} of BODY_LIMIT_BYTES`,
            )
          : checkLine(read.text, line, batch.endpoint, seen);
      if ('code' in checked) {
        errors.push(checked);
        if (errors.length >= MAX_ERRORS) break;
        continue;
      }
      lines++;
      // After a refusal the file fails whole: the lines are only checked, for the errors list.
      if (errors.length === 0)
        await copy.write({ batch_id: batch.id, line, custom_id: checked.customId, body: checked.body });
    }
  } catch (err) {
    await copy.abort();
    throw err;
  } finally {
    input.destroy();
  }
  if (errors.length === 0 && lines === 0) errors.push(refusal(1, 'empty_file', 'the input file has no requests'));
  if (errors.length > 0) await copy.abort();
  else await copy.end();
  return { lines, errors };
}

function checkLine(
  text: string,
  line: number,
  endpoint: BatchEndpoint,
  seen: Set<string>,
): { customId: string; body: string } | BatchValidationError {
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch {
    return refusal(line, 'invalid_json_line', 'This line is not parseable as valid JSON.');
  }
  // Postgres holds no NUL in text: refused here, naming the field, as every JSON body is (shared/refuse-nul.ts).
  try {
    if (text.includes('\\u0000')) refuseNulInJson(Buffer.from(text), request);
  } catch (err) {
    if (!isGatewayError(err)) throw err;
    return refusal(line, 'invalid_request', err.message, err.param ?? null);
  }
  if (typeof request !== 'object' || request === null || Array.isArray(request))
    return refusal(line, 'invalid_request', 'each line must be a JSON object {custom_id, method, url, body}');
  const { custom_id: customId, method, url, body } = request as Record<string, unknown>;
  if (typeof customId !== 'string' || customId === '' || customId.length > MAX_CUSTOM_ID)
    return refusal(
      line,
      'missing_required_parameter',
      `'custom_id' must be a string of 1-${MAX_CUSTOM_ID} characters`,
      'custom_id',
    );
  if (seen.has(customId))
    return refusal(line, 'duplicate_custom_id', `the custom_id '${customId}' appears on an earlier line`, 'custom_id');
  seen.add(customId);
  if (method !== 'POST') return refusal(line, 'invalid_method', "'method' must be 'POST'", 'method');
  if (url !== endpoint) return refusal(line, 'invalid_url', `'url' must be the batch's endpoint, '${endpoint}'`, 'url');
  try {
    parseLineBody(endpoint, body);
  } catch (err) {
    if (!isGatewayError(err)) throw err;
    const param = err.param === undefined ? 'body' : err.param.startsWith('body') ? err.param : `body.${err.param}`;
    return refusal(line, 'invalid_request', err.message, param);
  }
  return { customId, body: JSON.stringify(body) };
}
