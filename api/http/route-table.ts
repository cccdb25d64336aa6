import type { GatewayServices } from '../../shared/gateway/services.js';
import { embeddingsHandler } from '../embeddings/handler.js';
import { generationHandler } from '../generation/handler.js';
import type { RouteParams } from '../generation/surface.js';
import { customMethodOf, type FastTarget, type Route } from '../routes/route.js';
import type { Exchange } from './exchange.js';

/** A route answered on node:http: it answers everything itself, errors included, and never rejects. */
export type FastHandler = (ex: Exchange, params: RouteParams) => Promise<void>;

export interface RouteMatch {
  handler: FastHandler;
  params: RouteParams;
  /** The route's declared path (the access log's and the server span's `route`). */
  path: string;
}

/** One handler per surface, shared by its routes on node:http and by the Koa routes of the same declarations. */
export class FastHandlers {
  private readonly built = new Map<object, FastHandler>();

  constructor(private readonly services: GatewayServices) {}

  of(target: FastTarget): FastHandler {
    const surface = 'generation' in target ? target.generation : target.embeddings;
    let handler = this.built.get(surface);
    if (!handler) {
      handler =
        'generation' in target
          ? generationHandler(this.services, target.generation)
          : embeddingsHandler(this.services, target.embeddings);
      this.built.set(surface, handler);
    }
    return handler;
  }
}

/**
 * The hot routes answered straight on node:http (Koa's middleware costs more per call than a whole
 * bare proxy does): exact paths by a map lookup, patterned ones (`*model`, which may hold `/`) by
 * one regular expression each. Only POST is answered here; the query string is ignored for routing
 * (the genai SDK always sends `?alt=sse`). Anything else falls through to Koa.
 */
export function fastRouteTable(
  handlers: FastHandlers,
  routes: readonly Route[],
): (method: string | undefined, url: string | undefined) => RouteMatch | undefined {
  const exact = new Map<string, RouteMatch>();
  const patterned: { regex: RegExp; handler: FastHandler; stream: boolean | undefined; path: string }[] = [];
  for (const route of routes) {
    if (!('fast' in route)) continue;
    if (route.method !== 'post') throw new Error(`fast route ${route.path}: only POST is answered on node:http`);
    const handler = handlers.of(route.fast);
    const stream = 'generation' in route.fast ? route.fast.stream : undefined;
    if (!/[:*]/.test(route.path)) exact.set(route.path, { handler, params: {}, path: route.path });
    else if (customMethodOf(route.path))
      patterned.push({ regex: patternOf(route.path), handler, stream, path: route.path });
    else throw new Error(`fast route ${route.path}: only exact paths and custom methods are answered on node:http`);
  }
  return (method, url) => {
    if (method !== 'POST' || url === undefined) return undefined;
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const hit = exact.get(path);
    if (hit) return hit;
    for (const route of patterned) {
      const match = route.regex.exec(path);
      if (match)
        return {
          handler: route.handler,
          params: { model: decoded(match[1]!), stream: route.stream },
          path: route.path,
        };
    }
    return undefined;
  };
}

/** `/v1beta/models/*model:generateContent` → `^/v1beta/models/(.+):generateContent$`. */
function patternOf(path: string): RegExp {
  const { base, verb } = customMethodOf(path)!;
  const prefix = base.slice(0, base.lastIndexOf('*'));
  return new RegExp(`^${escapeRegExp(prefix)}(.+)${escapeRegExp(`:${verb}`)}$`);
}

/** A path segment decoded as Koa's router decodes it; one that is not valid percent-encoding stays as it came. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
