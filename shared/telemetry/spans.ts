import type { IncomingHttpHeaders } from 'node:http';
import {
  context,
  createContextKey,
  defaultTextMapGetter,
  defaultTextMapSetter,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_SYSTEM,
  ATTR_URL_PATH,
} from './semconv.js';

/**
 * The spans the gateway makes, each helper a no-op (returning undefined) while tracing is off, so
 * the hot path pays one boolean test per span it would have made. Spans carry names, ids, models,
 * counts and statuses: never a prompt, an answer, a header value or a key.
 */
let on = false;
let tracer = trace.getTracer('model-gateway');

/** Set once by startTracing (shared/telemetry/tracing.ts), after the provider is installed. */
export function setTracingOn(value: boolean): void {
  on = value;
  tracer = trace.getTracer('model-gateway');
}

export function tracingOn(): boolean {
  return on;
}

/** W3C trace context as stored with a job: what `traceparent`/`tracestate` would carry. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/** The request that created a job's chain of jobs, kept in the context a job runs in (see runJobSpan). */
const ORIGIN = createContextKey('model-gateway job origin');

/**
 * How a job's origin is written into its data and read back: always W3C trace context, whatever
 * OTEL_PROPAGATORS says goes over the wire (`none` there must not cost the jobs their links).
 */
const JOB_CARRIER = new W3CTraceContextPropagator();

/**
 * The server span of an HTTP call, continuing the client's `traceparent`; and the context its
 * handler runs in. Named by method until the route is known (`nameServerSpan`).
 */
export function startServerSpan(
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
): { span: Span; context: Context } | undefined {
  if (!on) return undefined;
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer.startSpan(
    method,
    { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_URL_PATH]: path } },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}

/** The route pattern, once known: the span's name and `http.route`. */
export function nameServerSpan(span: Span, method: string, route: string): void {
  span.updateName(`${method} ${route}`);
  span.setAttribute(ATTR_HTTP_ROUTE, route);
}

/** A child of `parent` (else of the active span): admission, usage write. */
export function startChildSpan(name: string, parent: Span | undefined): Span | undefined {
  if (!on) return undefined;
  const ctx = parent ? trace.setSpan(ROOT_CONTEXT, parent) : context.active();
  return tracer.startSpan(name, { kind: SpanKind.INTERNAL }, ctx);
}

/**
 * The client span of one upstream request, a child of the active span, and the request's headers
 * with its `traceparent` (a copy: the caller's object may be shared between calls).
 */
export function startUpstreamSpan(
  method: string,
  path: string,
  headers: Record<string, string>,
): { span: Span; headers: Record<string, string> } | undefined {
  if (!on) return undefined;
  const active = context.active();
  const span = tracer.startSpan(
    `upstream ${method}`,
    { kind: SpanKind.CLIENT, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_URL_PATH]: path } },
    active,
  );
  const carried: Record<string, string> = { ...headers };
  propagation.inject(trace.setSpan(active, span), carried);
  return { span, headers: carried };
}

/** Ends a span: an error status for a thrown error or a status of 500 and above. */
export function endSpan(span: Span | undefined, failure?: unknown, status?: number): void {
  if (!span) return;
  if (status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (failure !== undefined || (status !== undefined && status >= 500)) {
    const message = failure instanceof Error ? failure.message : undefined;
    span.setStatus(message === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message });
    if (failure instanceof Error) span.setAttribute(ATTR_ERROR_TYPE, failure.name);
  }
  span.end();
}

/** Ends `span` when `promise` settles; the promise is returned unchanged. */
export function spanOver<T>(span: Span | undefined, promise: Promise<T>): Promise<T> {
  if (!span) return promise;
  promise.then(
    () => endSpan(span),
    (err: unknown) => endSpan(span, err),
  );
  return promise;
}

/**
 * What a job enqueued now carries: the request that began its chain — the one a job running now
 * was linked to, else the span active now (the API call that creates a task). Undefined while
 * tracing is off or nothing is traced.
 */
export function jobTraceCarrier(): TraceCarrier | undefined {
  if (!on) return undefined;
  const active = context.active();
  const origin = active.getValue(ORIGIN) as TraceCarrier | undefined;
  if (origin) return origin;
  if (!trace.getSpanContext(active)) return undefined;
  const carrier: Partial<TraceCarrier> = {};
  JOB_CARRIER.inject(active, carrier, defaultTextMapSetter);
  if (!carrier.traceparent) return undefined;
  return carrier.tracestate
    ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate }
    : { traceparent: carrier.traceparent };
}

/**
 * Runs `fn` as if inside a job that `carrier`'s request began: the jobs it enqueues carry that
 * origin. For a job enqueued again from Postgres (the reconciler, the Redis-loss watcher), whose
 * row kept the trace context of the request that created it.
 */
export function withJobOrigin<T>(carrier: TraceCarrier | null | undefined, fn: () => T): T {
  if (!on || !carrier?.traceparent) return fn();
  return context.with(context.active().setValue(ORIGIN, carrier), fn);
}

/**
 * Runs one job attempt in a span of its own (a new trace: a job outlives its request), linked to
 * the request its data carries; jobs it enqueues carry that same origin.
 */
export async function runJobSpan<T>(
  queue: string,
  carrier: TraceCarrier | undefined,
  run: () => Promise<T>,
): Promise<T> {
  if (!on) return run();
  const links: Link[] = [];
  const origin = carrier
    ? trace.getSpanContext(JOB_CARRIER.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter))
    : undefined;
  if (origin) links.push({ context: origin });
  const span = tracer.startSpan(
    `job ${queue}`,
    {
      kind: SpanKind.CONSUMER,
      links,
      attributes: { [ATTR_MESSAGING_SYSTEM]: 'bullmq', [ATTR_MESSAGING_DESTINATION_NAME]: queue },
    },
    ROOT_CONTEXT,
  );
  let ctx = trace.setSpan(ROOT_CONTEXT, span);
  if (carrier && origin) ctx = ctx.setValue(ORIGIN, carrier);
  return runInSpan(span, ctx, run);
}

/**
 * Runs `run` in a span of its own, a child of the active one (a batch line in its batch job's
 * span): what `run` records (a metered call's GenAI attributes, its upstream request) lands on it.
 */
export function inChildSpan<T>(name: string, attributes: Attributes, run: () => Promise<T>): Promise<T> {
  if (!on) return run();
  const active = context.active();
  const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, active);
  return runInSpan(span, trace.setSpan(active, span), run);
}

async function runInSpan<T>(span: Span, ctx: Context, run: () => Promise<T>): Promise<T> {
  try {
    const result = await context.with(ctx, run);
    endSpan(span);
    return result;
  } catch (err) {
    endSpan(span, err);
    throw err;
  }
}

/** Runs `fn` with `ctx` active (a no-op while tracing is off). */
export function withContext<T>(ctx: Context | undefined, fn: () => T): T {
  return ctx ? context.with(ctx, fn) : fn();
}

/** The span active now (a worker's job span), for attributes of a call made outside an HTTP request. */
export function activeSpan(): Span | undefined {
  return on ? trace.getActiveSpan() : undefined;
}
