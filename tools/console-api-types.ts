import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../api/openapi/document.js';
import { ROUTES } from '../api/routes/index.js';

/**
 * The console site's API types (web/src/api/schema.d.ts), generated from the gateway's OpenAPI
 * document in the shape openapi-typescript emits, so openapi-fetch types every call by it.
 * Generated here rather than by openapi-typescript: that tool needs TypeScript 5's compiler API,
 * and this repository compiles with TypeScript 7, which has none. The document's schemas are
 * zod's JSON Schema output, a small regular subset (object, array, enum, const, anyOf, oneOf).
 * Request bodies, queries and the answers of the routes that declare a response schema are typed
 * by them; so the site's build fails when a field it reads is renamed (web/src/api/models.ts).
 *
 * `node dist/tools/console-api-types.js` rewrites the file; `--check` exits 1 when it drifted.
 */

type Schema = Record<string, unknown>;
type Response = { content?: Record<string, { schema?: Schema }> };
type Operation = {
  parameters?: { name: string; in: string; required?: boolean; schema: Schema }[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  responses: Record<string, Response>;
};

export const CONSOLE_TYPES_FILE = 'web/src/api/schema.d.ts';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));
const pad = (depth: number) => '    '.repeat(depth);

/** A JSON Schema (zod's output) as a TypeScript type. */
export function typeOf(schema: Schema | undefined, depth = 0): string {
  if (!schema || Object.keys(schema).length === 0) return 'unknown';
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (union) return [...new Set(union.map((s) => typeOf(s, depth)))].join(' | ');
  if (Array.isArray(schema.type)) return schema.type.map((t) => typeOf({ ...schema, type: t }, depth)).join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = typeOf(schema.items as Schema | undefined, depth);
      return /[|&]/.test(item) ? `(${item})[]` : `${item}[]`;
    }
    case 'object':
      return objectType(schema, depth);
    default:
      return 'unknown';
  }
}

function objectType(schema: Schema, depth: number): string {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const lines = Object.entries(properties).map(
    ([name, s]) => `${pad(depth + 1)}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(s, depth + 1)};`,
  );
  const extra = schema.additionalProperties;
  if (extra && typeof extra === 'object')
    lines.push(`${pad(depth + 1)}[key: string]: ${typeOf(extra as Schema, depth + 1)};`);
  else if (extra === undefined && lines.length === 0) lines.push(`${pad(depth + 1)}[key: string]: unknown;`);
  return lines.length ? `{\n${lines.join('\n')}\n${pad(depth)}}` : 'Record<string, never>';
}

function parameters(op: Operation, where: 'query' | 'path', depth: number): string {
  const list = (op.parameters ?? []).filter((p) => p.in === where);
  if (list.length === 0) return `${where}?: never;`;
  const fields = list.map(
    (p) => `${pad(depth + 1)}${key(p.name)}${p.required ? '' : '?'}: ${typeOf(p.schema, depth + 1)};`,
  );
  const optional = where === 'query' && list.every((p) => !p.required) ? '?' : '';
  return `${where}${optional}: {\n${fields.join('\n')}\n${pad(depth)}};`;
}

/** A response's body type: its schema's type where the document names one, else `unknown`. */
function content(response: Response | undefined, depth: number): string {
  const [media, body] = Object.entries(response?.content ?? {})[0] ?? ['application/json', undefined];
  return `content: {\n${pad(depth + 1)}${JSON.stringify(media)}: ${typeOf(body?.schema, depth + 1)};\n${pad(depth)}};`;
}

function operation(op: Operation, depth: number): string {
  const d = depth + 1;
  const body = op.requestBody?.content['application/json']?.schema;
  const responses = Object.entries(op.responses)
    .map(([status, response]) => {
      const answer = status === '204' || /^3/.test(status) ? 'content?: never;' : content(response, d + 2);
      // Statuses unquoted, as openapi-typescript writes them: openapi-fetch finds the success
      // answers among the numeric keys (`200`), not among strings (`"200"`).
      return `${pad(d + 1)}${/^\d+$/.test(status) ? status : key(status)}: {\n${pad(d + 2)}headers: {\n${pad(d + 3)}[name: string]: unknown;\n${pad(d + 2)}};\n${pad(d + 2)}${answer}\n${pad(d + 1)}};`;
    })
    .join('\n');
  return [
    '{',
    `${pad(d)}parameters: {`,
    `${pad(d + 1)}${parameters(op, 'query', d + 1)}`,
    `${pad(d + 1)}header?: never;`,
    `${pad(d + 1)}${parameters(op, 'path', d + 1)}`,
    `${pad(d + 1)}cookie?: never;`,
    `${pad(d)}};`,
    body
      ? `${pad(d)}requestBody: {\n${pad(d + 1)}content: {\n${pad(d + 2)}"application/json": ${typeOf(body, d + 2)};\n${pad(d + 1)}};\n${pad(d)}};`
      : `${pad(d)}requestBody?: never;`,
    `${pad(d)}responses: {\n${responses}\n${pad(d)}};`,
    `${pad(depth)}}`,
  ].join('\n');
}

/** The `paths` interface of every console route (`/api/v1/...`) of an OpenAPI document. */
export function consoleApiTypes(document: { paths: Record<string, Record<string, Operation>> }): string {
  const out = [
    "// Generated by tools/console-api-types.ts from the gateway's OpenAPI document: do not edit.",
    '// Regenerate: npm run build && node dist/tools/console-api-types.js',
    '',
    'export interface paths {',
  ];
  for (const [route, item] of Object.entries(document.paths).filter(([p]) => p.startsWith('/api/v1/'))) {
    out.push(`    ${JSON.stringify(route)}: {`);
    out.push(
      `        parameters: {\n            query?: never;\n            header?: never;\n            path?: never;\n            cookie?: never;\n        };`,
    );
    for (const method of METHODS) {
      const op = item[method];
      out.push(op ? `        ${method}: ${operation(op, 2)};` : `        ${method}?: never;`);
    }
    out.push('    };');
  }
  out.push('}', '');
  return out.join('\n');
}

export function currentConsoleApiTypes(): string {
  return consoleApiTypes(buildOpenApiDocument(ROUTES, 'console') as Parameters<typeof consoleApiTypes>[0]);
}

async function main(): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const file = path.join(root, CONSOLE_TYPES_FILE);
  const fresh = currentConsoleApiTypes();
  if (process.argv.includes('--check')) {
    const committed = await readFile(file, 'utf8').catch(() => '');
    if (committed !== fresh) {
      process.stderr.write(
        `${CONSOLE_TYPES_FILE} is out of date with the OpenAPI document: run \`npm run console:api-types\`\n`,
      );
      process.exit(1);
    }
    return;
  }
  await writeFile(file, fresh);
  process.stdout.write(`wrote ${CONSOLE_TYPES_FILE}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
