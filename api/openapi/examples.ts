/**
 * A request example derived from the JSON Schema of a route's zod schema, for the routes whose
 * declaration gives none (`examples.request` in api/routes/route.ts wins). Required fields are
 * filled, optional ones left out unless nothing is required, so the example is the smallest
 * valid body — the one a reader would start from.
 */
type Schema = Record<string, unknown>;

// A few field names recur on every surface; a real-looking value reads better than "string".
const NAMED: Record<string, unknown> = {
  model: 'gpt-4o-mini',
  email: 'owner@example.com',
  identifier: 'owner@example.com',
  password: 'correct horse battery staple',
  new_password: 'another long passphrase',
  code: '12345678',
  url: 'https://hooks.example.com/gateway',
  role: 'user',
  content: 'Say hello.',
  prompt: 'A lighthouse at dawn, watercolour',
  input: 'The quick brown fox',
  name: 'production',
  slug: 'cheap-first',
  locale: 'en-US',
  region: 'DE',
  image_url: 'https://example.com/photo.png',
  key_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  apiKey: 'ak-your-private-protocol-key',
  text: 'Say hello.',
};

const MAX_DEPTH = 6;

export function exampleFromSchema(root: Schema): unknown {
  const defs = (root.$defs ?? root.definitions ?? {}) as Record<string, Schema>;
  return sample(root, defs, undefined, 0);
}

function sample(schema: Schema, defs: Record<string, Schema>, name: string | undefined, depth: number): unknown {
  if (depth > MAX_DEPTH) return undefined;
  const ref = typeof schema.$ref === 'string' ? /^#\/(?:\$defs|definitions)\/(.+)$/.exec(schema.$ref)?.[1] : undefined;
  if (ref && defs[ref]) return sample(defs[ref], defs, name, depth + 1);
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum.find((v) => v !== null) ?? schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (options?.length) {
      const first = options.find((o) => o.type !== 'null') ?? options[0]!;
      return sample(first, defs, name, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as Schema[]).map((s) => sample(s, defs, name, depth + 1));
    return parts.every(isObject) ? Object.assign({}, ...parts) : parts[0];
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return objectSample(schema, defs, depth);
    case 'array': {
      const item = isObject(schema.items) ? sample(schema.items as Schema, defs, singular(name), depth + 1) : undefined;
      return item === undefined ? [] : [item];
    }
    case 'string':
      return stringSample(schema, name);
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' && schema.minimum > 0 ? schema.minimum : 1;
    case 'boolean':
      return true;
    default:
      return name && name in NAMED ? NAMED[name] : undefined;
  }
}

function objectSample(schema: Schema, defs: Record<string, Schema>, depth: number): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = (schema.required ?? []) as string[];
  const names = required.length ? required : Object.keys(properties).slice(0, 3);
  const out: Record<string, unknown> = {};
  for (const key of names) {
    const value = properties[key] ? sample(properties[key], defs, key, depth + 1) : undefined;
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function stringSample(schema: Schema, name: string | undefined): string {
  if (name && typeof NAMED[name] === 'string') return NAMED[name] as string;
  switch (schema.format) {
    case 'date-time':
      return '2026-01-31T12:00:00Z';
    case 'date':
      return '2026-01-31';
    case 'email':
      return 'owner@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com/';
    case 'uuid':
      return '0f8fad5b-d9cb-469f-a165-70867728950e';
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const text = name ? name.replace(/_/g, '-') : 'text';
  return text.length >= min ? text : text.padEnd(min, 'x');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const singular = (name: string | undefined) => name?.replace(/s$/, '');
