import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONSOLE_TYPES_FILE, consoleApiTypes, currentConsoleApiTypes, typeOf } from '../../tools/console-api-types.js';

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

  it('types each answer by its schema, under its numeric status (where openapi-fetch looks for success)', () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
    };
    const types = consoleApiTypes({
      paths: {
        '/api/v1/things/{id}': {
          get: { responses: { '200': { content: { 'application/json': { schema } } }, default: {} } },
          delete: { responses: { '204': {} } },
        },
      },
    }).replace(/\s+/g, ' ');
    const headers = 'headers: { [name: string]: unknown; };';
    expect(types).toContain(`200: { ${headers} content: { "application/json": { id: string; }; }; };`);
    // Without a schema the answer is unknown; a 204 has no content.
    expect(types).toContain(`default: { ${headers} content: { "application/json": unknown; }; };`);
    expect(types).toContain(`204: { ${headers} content?: never; };`);
  });
});
