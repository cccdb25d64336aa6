import type { GatewayServices } from '../../shared/gateway/services.js';
import { generateContentSurface } from '../content/surface.js';
import { generationHandler, type GenerationHandler } from '../generation/handler.js';
import type { RouteParams, Surface } from '../generation/surface.js';
import { messagesSurface } from '../messages/surface.js';
import { chatCompletionsSurface } from '../openai/chat-surface.js';
import { responsesSurface } from '../openai/responses-surface.js';

/** A generation route: `{model}` matches the rest of the path up to the method (model ids may hold `/`). */
export interface GenerationRoute {
  method: 'POST';
  pattern: string;
  surface: Surface;
  /** generateContent says in its path whether it streams. */
  stream?: boolean;
}

/** Every generation route: the spec's prefixed routes and the older unprefixed ones (Versioning). */
export const GENERATION_ROUTES: readonly GenerationRoute[] = [
  { method: 'POST', pattern: '/v1/chat/completions', surface: chatCompletionsSurface },
  { method: 'POST', pattern: '/v1/responses', surface: responsesSurface },
  { method: 'POST', pattern: '/native-messages/v1/messages', surface: messagesSurface },
  { method: 'POST', pattern: '/v1/messages', surface: messagesSurface },
  ...['/native-content/v1beta', '/v1beta'].flatMap((prefix): GenerationRoute[] => [
    { method: 'POST', pattern: `${prefix}/models/{model}:generateContent`, surface: generateContentSurface, stream: false },
    { method: 'POST', pattern: `${prefix}/models/{model}:streamGenerateContent`, surface: generateContentSurface, stream: true },
  ]),
];

export interface RouteMatch {
  handler: GenerationHandler;
  params: RouteParams;
}

/**
 * The generation routes answered straight on node:http (Koa's middleware costs more per call than a
 * whole bare proxy does): exact paths by a map lookup, patterned ones by one regular expression
 * each. The query string is ignored for routing (the genai SDK always sends `?alt=sse`).
 */
export function generationRouteTable(services: GatewayServices): (method: string | undefined, url: string | undefined) => RouteMatch | undefined {
  const handlers = new Map<Surface, GenerationHandler>();
  const handlerOf = (surface: Surface) => {
    let handler = handlers.get(surface);
    if (!handler) handlers.set(surface, (handler = generationHandler(services, surface)));
    return handler;
  };
  const exact = new Map<string, RouteMatch>();
  const patterned: { regex: RegExp; handler: GenerationHandler; stream: boolean | undefined }[] = [];
  for (const route of GENERATION_ROUTES) {
    if (!route.pattern.includes('{')) exact.set(route.pattern, { handler: handlerOf(route.surface), params: {} });
    else patterned.push({ regex: new RegExp(`^${escape(route.pattern).replace('\\{model\\}', '(.+)')}$`), handler: handlerOf(route.surface), stream: route.stream });
  }
  return (method, url) => {
    if (method !== 'POST' || url === undefined) return undefined;
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const hit = exact.get(path);
    if (hit) return hit;
    for (const route of patterned) {
      const match = route.regex.exec(path);
      if (match) return { handler: route.handler, params: { model: decoded(match[1]!), stream: route.stream } };
    }
    return undefined;
  };
}

/** A path segment decoded as Koa's router decodes it; one that is not valid percent-encoding stays as it came. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
