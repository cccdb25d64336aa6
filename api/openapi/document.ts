import { z } from 'zod';
import { openApiPath, successStatus, type RouteAuth, type RouteDoc } from '../routes/route.js';
import { exampleFromSchema } from './examples.js';

const SECURITY: Record<Exclude<RouteAuth, 'none'>, { name: string; scheme: Record<string, unknown> }> = {
  apiKey: {
    name: 'apiKey',
    scheme: { type: 'http', scheme: 'bearer', description: 'An `sk-` API key: `Authorization: Bearer <API_KEY>`' },
  },
  messagesKey: {
    name: 'messagesKey',
    scheme: {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
      description: 'Messages-style routes also take `Authorization: Bearer`',
    },
  },
  contentKey: {
    name: 'contentKey',
    scheme: { type: 'apiKey', in: 'header', name: 'x-vendor-api-key', description: 'Also `x-goog-api-key` or `?key=`' },
  },
  bodyKey: {
    name: 'bodyKey',
    scheme: {
      type: 'apiKey',
      in: 'header',
      name: 'apiKey',
      description:
        'The private protocol: an `ak-` key in the JSON body field `apiKey` (OpenAPI cannot say "body"; no header is read)',
    },
  },
  session: {
    name: 'session',
    scheme: {
      type: 'apiKey',
      in: 'cookie',
      name: 'gw_session',
      description:
        'The console session cookie (named `__Host-gw_session` where the console or public URL is HTTPS), or the same token as `Authorization: Bearer`',
    },
  },
  operator: { name: 'operator', scheme: { type: 'http', scheme: 'bearer', description: 'The `OPERATOR_TOKEN`' } },
};

/**
 * A zod schema as JSON Schema. `input` is what a client sends (coercions and defaults show as
 * accepted input); `output` is what the gateway answers.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

function parameters(route: RouteDoc): unknown[] {
  const params: unknown[] = [...openApiPath(route.path).matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (route.query) {
    const query = jsonSchema(route.query) as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, schema] of Object.entries(query.properties ?? {})) {
      params.push({ name, in: 'query', required: query.required?.includes(name) ?? false, schema });
    }
  }
  return params;
}

/** The success answer's content: its schema and example, in its media type. */
function successContent(route: RouteDoc): Record<string, unknown> | undefined {
  const example = route.examples?.response;
  if (!route.response && example === undefined) return undefined;
  const media = route.media ?? 'application/json';
  const schema = route.response
    ? jsonSchema(route.response, 'output')
    : media === 'application/json'
      ? undefined
      : { type: 'string' };
  return { [media]: { ...(schema && { schema }), ...(example !== undefined && { example }) } };
}

function operation(route: RouteDoc): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  const declared: [string, string][] = Object.entries(route.responses ?? {});
  // A 200 is assumed where no success status is declared (only refusals, or nothing); a route
  // that answers with a redirect declares its 3xx and has no 200.
  const statuses: [string, string][] = declared.some(([status]) => /^[23]/.test(status))
    ? declared
    : [['200', 'success'], ...declared];
  const success = successStatus(route);
  const content = successContent(route);
  for (const [status, description] of statuses) {
    responses[status] = { description, ...(status === success && content && { content }) };
  }
  responses.default = { description: "an error in the surface's own format (docs/reference/errors.md)" };
  const schema = route.body && jsonSchema(route.body);
  const raw = route.rawBody;
  const body = schema
    ? {
        required: true,
        content: {
          'application/json': { schema, example: route.examples?.request ?? exampleFromSchema(schema) },
        },
      }
    : raw && {
        required: true,
        content: { [raw.media]: { schema: raw.schema, ...(raw.example !== undefined && { example: raw.example }) } },
      };
  return {
    tags: [route.tag],
    // The summary is a title (plain text in the sidebar); where it holds Markdown, the description
    // repeats it rendered (code spans); otherwise the title says it all.
    summary: route.summary.replace(/`/g, ''),
    ...(route.summary.includes('`') && { description: route.summary }),
    ...(route.auth === 'none' ? { security: [] } : { security: [{ [SECURITY[route.auth].name]: [] }] }),
    ...(parameters(route).length && { parameters: parameters(route) }),
    ...(body && { requestBody: body }),
    ...(route.streams && { 'x-streams': 'text/event-stream when the body asks for a stream' }),
    responses,
  };
}

/** The OpenAPI 3.1 document of every route, built once from the route list (api/routes). */
export function buildOpenApiDocument(routes: readonly RouteDoc[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[openApiPath(route.path)] ??= {})[route.method] = operation(route);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Model gateway',
      version,
      description:
        'Every data-plane route (`/v1`, `/native-messages`, `/native-content`, `/v1beta`, `/server`) and the console API (`/api/v1`). Amounts are integer micro-USD.',
    },
    components: {
      securitySchemes: Object.fromEntries(Object.values(SECURITY).map(({ name, scheme }) => [name, scheme])),
    },
    paths,
  };
}
