import type { GatewayServices } from '../../shared/gateway/services.js';
import { generateContentSurface } from '../content/surface.js';
import { embeddingsHandler } from '../embeddings/handler.js';
import { batchEmbedContents, embedContent, openAiEmbeddings, type EmbeddingSurface } from '../embeddings/surfaces.js';
import { generationHandler } from '../generation/handler.js';
import type { RouteParams, Surface } from '../generation/surface.js';
import { messagesSurface } from '../messages/surface.js';
import { chatCompletionsSurface } from '../openai/chat-surface.js';
import { responsesSurface } from '../openai/responses-surface.js';
import type { Exchange } from './exchange.js';

/** A route answered on node:http: it answers everything itself, errors included, and never rejects. */
export type FastHandler = (ex: Exchange, params: RouteParams) => Promise<void>;

/** What a fast route runs: a generation surface, or an embeddings surface. */
export type FastTarget = { generation: Surface } | { embeddings: EmbeddingSurface };

/** A fast route: `{model}` matches the rest of the path up to the method (model ids may hold `/`). */
export interface FastRoute {
  method: 'POST';
  pattern: string;
  target: FastTarget;
  /** generateContent says in its path whether it streams. */
  stream?: boolean;
}

const content = (prefix: string): FastRoute[] => [
  {
    method: 'POST',
    pattern: `${prefix}/models/{model}:generateContent`,
    target: { generation: generateContentSurface },
    stream: false,
  },
  {
    method: 'POST',
    pattern: `${prefix}/models/{model}:streamGenerateContent`,
    target: { generation: generateContentSurface },
    stream: true,
  },
  { method: 'POST', pattern: `${prefix}/models/{model}:embedContent`, target: { embeddings: embedContent } },
  {
    method: 'POST',
    pattern: `${prefix}/models/{model}:batchEmbedContents`,
    target: { embeddings: batchEmbedContents },
  },
];

/** The hot routes: every generation and embeddings call, the spec's prefixed routes and the older unprefixed ones (Versioning). */
export const FAST_ROUTES: readonly FastRoute[] = [
  { method: 'POST', pattern: '/v1/chat/completions', target: { generation: chatCompletionsSurface } },
  { method: 'POST', pattern: '/v1/responses', target: { generation: responsesSurface } },
  { method: 'POST', pattern: '/v1/embeddings', target: { embeddings: openAiEmbeddings } },
  { method: 'POST', pattern: '/native-messages/v1/messages', target: { generation: messagesSurface } },
  { method: 'POST', pattern: '/v1/messages', target: { generation: messagesSurface } },
  ...content('/native-content/v1beta'),
  ...content('/v1beta'),
];

export interface RouteMatch {
  handler: FastHandler;
  params: RouteParams;
}

/** One handler per surface, shared by its routes and by the Koa routers that list them. */
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
 * bare proxy does): exact paths by a map lookup, patterned ones by one regular expression each. The
 * query string is ignored for routing (the genai SDK always sends `?alt=sse`).
 */
export function fastRouteTable(
  handlers: FastHandlers,
): (method: string | undefined, url: string | undefined) => RouteMatch | undefined {
  const exact = new Map<string, RouteMatch>();
  const patterned: { regex: RegExp; handler: FastHandler; stream: boolean | undefined }[] = [];
  for (const route of FAST_ROUTES) {
    const handler = handlers.of(route.target);
    if (!route.pattern.includes('{')) exact.set(route.pattern, { handler, params: {} });
    else
      patterned.push({
        regex: new RegExp(`^${escape(route.pattern).replace('\\{model\\}', '(.+)')}$`),
        handler,
        stream: route.stream,
      });
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
