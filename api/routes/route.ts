import type { Middleware } from 'koa';
import type { z } from 'zod';
import type { GatewayServices } from '../../shared/gateway/services.js';
import type { EmbeddingSurface } from '../embeddings/surfaces.js';
import type { Surface } from '../generation/surface.js';

/** How a route is authenticated, as the OpenAPI security schemes of api/openapi/document.ts name them. */
export type RouteAuth = 'apiKey' | 'messagesKey' | 'contentKey' | 'bodyKey' | 'session' | 'operator' | 'none';

export type RouteMethod = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head';

/** What the OpenAPI document says of a route. */
export interface RouteDoc {
  method: RouteMethod;
  /**
   * Koa's form: `/v1/videos/:id`; `*id` takes the rest of the path (model ids may hold `/`); a
   * trailing `:verb` after a `*param` is a custom method (`/v1beta/models/*model:generateContent`,
   * as Google's APIs name them), routed by the verb after the path's last colon.
   */
  path: string;
  tag: string;
  summary: string;
  auth: RouteAuth;
  /** The very zod schemas the route validates with, so the document cannot drift from what the gateway accepts. */
  body?: z.ZodType;
  query?: z.ZodType;
  /**
   * A body that is not JSON (a multipart form, raw bytes, a urlencoded form), for the reference:
   * its media type, its JSON Schema and an example. The handler reads and checks it itself.
   */
  rawBody?: { media: string; schema: Record<string, unknown>; example?: unknown };
  /** Status → description; a 200 is assumed when none is given. */
  responses?: Record<number, string>;
  /**
   * The success answer's body (the status of `successStatus`), as the gateway sends it: emitted as
   * that response's schema, and every real answer parses with it strictly
   * (test/openapi/example-shapes.ts). Objects are `z.strictObject`s, so a field the schema does not
   * name fails the test.
   */
  response?: z.ZodType;
  /** The success answer's media type when it is not JSON: `text/event-stream`, `application/jsonl`, `text/html`… */
  media?: string;
  /** The answer is an SSE stream when the body asks for it. */
  streams?: boolean;
  /**
   * Shown in the reference (api/routes/examples/, one file per surface): `request` replaces the
   * body example derived from `body`'s schema (api/openapi/examples.ts); `response` is the success
   * answer's body (the status of `successStatus`), a string for a `media` that is not JSON (an SSE
   * stream, JSONL lines).
   */
  examples?: { request?: unknown; response?: unknown };
}

/** What a hot route runs on node:http: a generation surface, or an embeddings surface. */
export type FastTarget = { generation: Surface; stream?: boolean } | { embeddings: EmbeddingSurface };

/** A Koa handler, built once when the app is: `list` is the route list it was built from (the OpenAPI routes describe it). */
export type KoaHandler = (services: GatewayServices, list: readonly Route[]) => Middleware;

/**
 * One route of the API, declared once: the fast table, the Koa routers and the OpenAPI document
 * are all built from these.
 */
export type Route = RouteDoc &
  (
    | { handler: KoaHandler }
    /** Answered on node:http before Koa (every generation and embeddings call: the hot path). */
    | { fast: FastTarget }
    /** Served by an app-wide Koa middleware (the queue dashboard owns every path under its own). */
    | { middleware: string }
  );

/**
 * The routes of one Koa router, tried in list order; the routers are tried in the order of their
 * groups. `authenticate` runs before the handler of every route of that auth (the console's session).
 */
export interface RouteGroup {
  name: string;
  /** Every path of the group starts with it; requests outside it never reach `before`. */
  prefix?: string;
  /** Runs before every route of the group that matched (not for paths the group does not serve). */
  before?: (services: GatewayServices) => Middleware[];
  authenticate?: Partial<Record<RouteAuth, (services: GatewayServices) => Middleware>>;
  routes: readonly Route[];
}

/**
 * The status whose body the reference shows: the first 2xx with a body declared, or the 200
 * assumed where a route declares no success; undefined for a route that answers only 204, a
 * redirect or headers (HEAD).
 */
export function successStatus(route: Pick<RouteDoc, 'method' | 'responses'>): string | undefined {
  if (route.method === 'head') return undefined;
  const declared = Object.keys(route.responses ?? {});
  if (!declared.some((status) => /^[23]/.test(status))) return '200';
  return declared.find((status) => /^2/.test(status) && status !== '204');
}

const CUSTOM_METHOD = /^(.*\*\w+):(\w+)$/;

/** `/v1beta/models/*model:generateContent` → the path Koa routes (`/v1beta/models/*model`) and the verb. */
export function customMethodOf(path: string): { base: string; verb: string } | undefined {
  const match = CUSTOM_METHOD.exec(path);
  return match ? { base: match[1]!, verb: match[2]! } : undefined;
}

/** The OpenAPI form of a route's path: `/v1/videos/{id}`, `/v1beta/models/{model}:generateContent`. */
export function openApiPath(path: string): string {
  return path.replace(/[:*](\w+)/g, (whole, name: string, at: number) =>
    // A custom method's `:verb` follows a parameter, not a `/`: it stays as it is.
    at > 0 && path[at - 1] !== '/' ? whole : `{${name}}`,
  );
}
