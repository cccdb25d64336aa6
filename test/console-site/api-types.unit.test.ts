import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONSOLE_TYPES_FILE, currentConsoleApiTypes, typeOf } from '../../tools/console-api-types.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the console site API types', () => {
  it('are what the OpenAPI document generates today (else: npm run console:api-types)', async () => {
    expect(await readFile(path.join(ROOT, CONSOLE_TYPES_FILE), 'utf8')).toBe(currentConsoleApiTypes());
  });

  it("turn zod's JSON Schema into TypeScript", () => {
    expect(typeOf({ anyOf: [{ type: 'integer' }, { type: 'null' }] })).toBe('number | null');
    expect(typeOf({ type: 'array', items: { type: 'string', enum: ['a', 'b'] } })).toBe('("a" | "b")[]');
    expect(
      typeOf({ type: 'object', properties: { x: { const: 1 } }, required: ['x'], additionalProperties: false }),
    ).toBe('{\n    x: 1;\n}');
  });
});
