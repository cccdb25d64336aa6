import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { passageOf } from '../../shared/generation/passage.js';
import { GenerationRequest } from '../../shared/generation/request-body.js';
import { TranslatingScanner } from '../../shared/generation/translating-scanner.js';
import { CLIENT_CODECS, CODECS } from '../../shared/protocols/codecs.js';
import type { ChatProtocol, ClientProtocol } from '../../shared/protocols/canonical/types.js';
import { answerViolations, streamViolations } from '../support/wire-schemas/index.js';

/**
 * Translation golden files: `test/protocols/<from>-to-<to>/<kind>-<case>.json` hold an input in one
 * protocol and the output in the other side by side, for a reader to check against the protocols'
 * documentation. `request`: a client's body → the upstream body; `response`: an upstream's whole
 * answer → the client's; `stream`: an upstream's frames → the client's (fed 5 bytes at a time).
 * UPDATE_GOLDEN=1 rewrites the outputs (then read the diff before committing it).
 */
const ROOT = path.dirname(fileURLToPath(import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';

interface Golden {
  kind: 'request' | 'response' | 'stream';
  description: string;
  input: unknown;
  output: unknown;
}

// The translation's clock and the ids it makes (Responses items) vary per run: fixed so outputs compare.
const MADE_ID = /\b(resp|msg|fc)_[A-Za-z0-9]{24}\b/g;
function normalise(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, v: unknown) =>
    (key === 'created' || key === 'created_at') && typeof v === 'number'
      ? 0
      : typeof v === 'string'
        ? v.replace(MADE_ID, '$1_*')
        : v,
  );
}

/** A request goes client → upstream (`from` may be `responses`); an answer upstream → client (`to` may be). */
function translate(golden: Golden, from: ClientProtocol, to: ClientProtocol): unknown {
  if (golden.kind === 'request') {
    const request = new GenerationRequest(from, golden.input as Record<string, unknown>, undefined, false, undefined);
    return JSON.parse(request.bodyFor(passageOf(from, to), 'upstream-model', 1000) as string);
  }
  const upstream = CODECS[from as ChatProtocol];
  if (golden.kind === 'response')
    return normalise(
      CLIENT_CODECS[to].responseFromCanonical(upstream.responseToCanonical(golden.input), 'gateway-model'),
    );
  const scanner = new TranslatingScanner(
    upstream.streamDecoder(),
    // The gateway's own count of the prompt (Messages announces it in message_start before the upstream reports it).
    CLIENT_CODECS[to].streamEncoder({ model: 'gateway-model', clientWantsUsage: true, promptTokens: 21 }),
  );
  const bytes = Buffer.from((golden.input as string[]).map((f) => `${f}\n\n`).join(''));
  let out = '';
  for (let at = 0; at < bytes.length && !scanner.done; at += 5)
    out += scanner.push(bytes.subarray(at, at + 5))?.toString() ?? '';
  expect(scanner.done).toBe(true);
  out += scanner.endMarker();
  return out
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => frame.replace(/"created(_at)?":\d+/g, '"created$1":0').replace(MADE_ID, '$1_*'));
}

for (const dir of readdirSync(ROOT)
  .filter((d) => d.includes('-to-'))
  .sort()) {
  const [from, to] = dir.split('-to-') as [ClientProtocol, ClientProtocol];
  describe(`${from} → ${to}`, () => {
    for (const file of readdirSync(path.join(ROOT, dir))
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      it(file.replace('.json', ''), () => {
        const where = path.join(ROOT, dir, file);
        const golden = JSON.parse(readFileSync(where, 'utf8')) as Golden;
        const actual = translate(golden, from, to);
        if (UPDATE) {
          golden.output = actual;
          writeFileSync(where, `${JSON.stringify(golden, null, 2)}\n`);
          return;
        }
        expect(golden.output, 'no output recorded: run with UPDATE_GOLDEN=1 and review it').not.toBeNull();
        expect(actual).toEqual(golden.output);
        // Every translated answer is exactly what the real API sends: strict shapes, event order, end marker.
        if (golden.kind === 'response') expect(answerViolations(to, actual)).toEqual([]);
        if (golden.kind === 'stream')
          expect(streamViolations(to, `${(actual as string[]).join('\n\n')}\n\n`)).toEqual([]);
      });
    }
  });
}
