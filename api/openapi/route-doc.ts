import type { z } from 'zod';

/** How a route is authenticated, as the OpenAPI security schemes of document.ts name them. */
export type RouteAuth = 'apiKey' | 'messagesKey' | 'contentKey' | 'bodyKey' | 'session' | 'operator' | 'none';

/**
 * One documented route. The body and query schemas are the very zod schemas the route validates
 * with, so the document cannot drift from what the gateway accepts.
 */
export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head';
  /** OpenAPI form: `/v1/videos/{id}`. */
  path: string;
  tag: string;
  summary: string;
  auth: RouteAuth;
  body?: z.ZodType;
  query?: z.ZodType;
  /** Status → description; a 200 is assumed when none is given. */
  responses?: Record<number, string>;
  /** The answer is an SSE stream when the body asks for it. */
  streams?: boolean;
}
