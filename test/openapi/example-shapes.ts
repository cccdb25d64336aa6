import { expect } from 'vitest';
import { ROUTES } from '../../api/routes/index.js';
import type { Route } from '../../api/routes/route.js';

/**
 * The reference's response examples held to the gateway's real answers: a test calls the routes of
 * one surface on a running gateway, records each answer here, and `expectExamplesMatch` checks
 * that every example of that surface has the fields of its route's real answer at every level, no
 * more and no fewer, and that the answer (and the example) parse with the route's response schema,
 * strictly, where it declares one.
 */
export class RealAnswers {
  private readonly answers = new Map<Route, unknown>();

  constructor(
    /** The routes this file answers for: each with a response example must be called. */
    readonly routes: readonly Route[],
  ) {}

  /**
   * Calls `path` on the gateway at `base` and records its answer as that of the route declared as
   * `route` (a JSON body, or the text of anything else); a failure fails the test.
   */
  async call(base: string, method: string, path: string, route: string, o: CallOptions = {}): Promise<Answer> {
    const res = await fetch(`${base}${path}`, {
      method: method.toUpperCase(),
      headers: { ...o.headers, ...(o.body !== undefined && { 'content-type': 'application/json' }) },
      ...(o.body !== undefined && { body: JSON.stringify(o.body) }),
      ...(o.form && { body: o.form }),
    });
    const text = await res.text();
    expect(res.status, `${method} ${path}: ${text.slice(0, 300)}`).toBeLessThan(300);
    const json = /^application\/json\b/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : undefined;
    this.record(method, route, json ?? text);
    return { status: res.status, json, text };
  }

  /** The answer of the route declared as `method path` (the route list's path: `/v1/videos/:id`). */
  record(method: string, path: string, body: unknown): void {
    const route = this.routes.find((r) => r.method === method && r.path === path);
    expect(route, `${method} ${path} is not a route of this surface`).toBeDefined();
    // A stream or JSONL answer is compared as its list of events or lines.
    this.answers.set(route!, typeof body === 'string' ? bodyItems(body) : body);
  }

  /**
   * Every example of the surface has a recorded answer of the same shape, and both parse with the
   * route's schema. `notCalled` names (`method path`) the routes this test cannot reach, with why:
   * their examples are still held to their schemas.
   */
  expectExamplesMatch(notCalled: Record<string, string> = {}): void {
    const name = (r: Route) => `${r.method} ${r.path}`;
    const uncalled = this.routes
      .filter((r) => r.examples?.response !== undefined && !this.answers.has(r) && !(name(r) in notCalled))
      .map(name);
    expect(uncalled, 'routes with a response example that this test never called').toEqual([]);
    const wrong: string[] = [];
    const parses = (route: Route, which: string, body: unknown) => {
      const parsed = route.response?.safeParse(body);
      if (parsed && !parsed.success)
        wrong.push(`${name(route)}: the ${which} does not parse with the route's schema: ${parsed.error.message}`);
    };
    for (const [route, real] of this.answers) {
      const example = exampleBody(route);
      for (const at of shapeDifferences(shapeOf(example), shapeOf(real), '$'))
        wrong.push(`${name(route)}: ${at} (example ${JSON.stringify(example).slice(0, 300)})`);
      parses(route, 'real answer', real);
      parses(route, 'example', example);
    }
    for (const route of this.routes.filter((r) => name(r) in notCalled)) {
      expect(this.answers.has(route), `${name(route)} is called after all`).toBe(false);
      parses(route, 'example', exampleBody(route));
    }
    expect(wrong).toEqual([]);
  }
}

const TASK_PREFIXES = [
  '/v1/videos',
  '/v1/images/tasks',
  '/v1/files',
  '/v1/batches',
  '/v1/messages/batches',
  '/native-messages/v1/messages/batches',
  '/server/v1',
];

/**
 * Which test file holds a route's example to its real answer: console-examples (the console API),
 * task-examples (work for the workers: tasks, files, batches, the private protocol) or
 * api-examples (every other route, answered in the request).
 */
export function surfaceOf(route: Route): 'console' | 'tasks' | 'api' {
  if (route.path.startsWith('/api/v1/')) return 'console';
  return TASK_PREFIXES.some((prefix) => route.path.startsWith(prefix)) ? 'tasks' : 'api';
}

export const routesOf = (surface: ReturnType<typeof surfaceOf>) => ROUTES.filter((r) => surfaceOf(r) === surface);

/** The example as the answer it shows: a string example of a stream or a JSONL file is its items. */
export function exampleBody(route: Route): unknown {
  const example = route.examples?.response;
  return typeof example === 'string' ? bodyItems(example) : example;
}

/** An SSE body's `data:` payloads, or a JSONL body's lines, parsed; other text stays as it is. */
function bodyItems(text: string): unknown {
  const parse = (items: string[]) => items.filter((item) => item !== '').map((item) => JSON.parse(item) as unknown);
  if (/^(data|event): /.test(text))
    return parse(
      text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice('data: '.length)),
    );
  if (text.startsWith('{')) return parse(text.split('\n'));
  return text;
}

export interface CallOptions {
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as multipart/form-data. */
  form?: FormData;
}

export interface Answer {
  status: number;
  // Assertions read arbitrary JSON shapes.
  // biome-ignore lint/suspicious/noExplicitAny: the expectations are the type check
  json: any;
  text: string;
}

type Shape = { fields: Map<string, Shape> } | { items: Shape | undefined } | 'value';

/** The fields of a value at every level; an array's items merged (a field any item has). */
export function shapeOf(value: unknown): Shape {
  if (Array.isArray(value)) return { items: value.map(shapeOf).reduce<Shape | undefined>(merge, undefined) };
  if (value !== null && typeof value === 'object')
    return { fields: new Map(Object.entries(value).map(([k, v]) => [k, shapeOf(v)])) };
  return 'value';
}

function merge(a: Shape | undefined, b: Shape): Shape {
  if (a === undefined || a === 'value') return b;
  if (b === 'value') return a;
  if ('fields' in a && 'fields' in b) {
    const fields = new Map(a.fields);
    for (const [k, v] of b.fields) fields.set(k, merge(fields.get(k), v));
    return { fields };
  }
  if ('items' in a && 'items' in b) return { items: b.items ? merge(a.items, b.items) : a.items };
  return a;
}

/**
 * Where two shapes name other fields: compared wherever both sides hold an object (a `null` or an
 * empty list on one side says nothing of the other's fields).
 */
export function shapeDifferences(example: Shape, real: Shape, at: string): string[] {
  if (example === 'value' || real === 'value') return [];
  if ('items' in example && 'items' in real)
    return example.items && real.items ? shapeDifferences(example.items, real.items, `${at}[]`) : [];
  if (!('fields' in example && 'fields' in real)) return [];
  const out: string[] = [];
  const missing = [...real.fields.keys()].filter((k) => !example.fields.has(k));
  const extra = [...example.fields.keys()].filter((k) => !real.fields.has(k));
  if (missing.length) out.push(`${at} lacks ${missing.join(', ')}`);
  if (extra.length) out.push(`${at} has ${extra.join(', ')}, which the real answer has not`);
  for (const [k, v] of example.fields) {
    const other = real.fields.get(k);
    if (other) out.push(...shapeDifferences(v, other, `${at}.${k}`));
  }
  return out;
}
