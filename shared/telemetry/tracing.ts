import { context, propagation, trace, type TextMapPropagator } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  ExportResultCode,
  setGlobalErrorHandler,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
  type ExportResult,
} from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { Logger } from '../log.js';
import { GATEWAY_VERSION } from '../version.js';
import type { PropagatorName, SamplerName, TracingConfig } from './config.js';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from './semconv.js';
import { setTracingOn } from './spans.js';

export interface Tracing {
  /** Sends what is still buffered and stops (the last shutdown step). */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { shutdown: async () => {} };

/**
 * Traces over OTLP/HTTP (protobuf) when an endpoint is configured; otherwise nothing is installed
 * at all, so the spans the code asks for are the API's no-op ones and no context is carried
 * between callbacks. A collector that is down or a wrong endpoint costs one log line (and one when
 * it answers again), never a call: spans are exported in the background and dropped when the
 * buffer is full.
 */
export function startTracing(config: TracingConfig, log: Logger): Tracing {
  for (const notice of config.notices) log.warn(notice);
  if (config.offBecause) log.info(`tracing: off (${config.offBecause}), although an OTLP endpoint is set`);
  if (!config.endpoint) return OFF;
  const exporter = new ReportingExporter(new OTLPTraceExporter({ url: config.endpoint }), config.endpoint, log);
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over our defaults.
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: config.serviceName,
    [ATTR_SERVICE_VERSION]: GATEWAY_VERSION,
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(config.sampler, config.samplerArg),
    spanProcessors: [new BatchSpanProcessor({ exporter, ...config.batch })],
  });
  // The SDK's own complaints (a full buffer, a bad attribute) go to our log, not to stderr.
  setGlobalErrorHandler((err) => log.debug({ err: String(err) }, 'tracing'));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  // OTEL_PROPAGATORS: what a client's headers are read for and an upstream request is given (`none`: nothing).
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: config.propagators.map((name) => PROPAGATORS[name]()) }),
  );
  trace.setGlobalTracerProvider(provider);
  setTracingOn(true);
  log.info(
    { endpoint: config.endpoint, sampler: config.sampler, propagators: config.propagators },
    'tracing: spans exported over OTLP/HTTP',
  );
  return {
    async shutdown() {
      await provider.shutdown().catch(() => undefined);
    },
  };
}

const PROPAGATORS: Record<PropagatorName, () => TextMapPropagator> = {
  tracecontext: () => new W3CTraceContextPropagator(),
  baggage: () => new W3CBaggagePropagator(),
};

function samplerOf(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** The OTLP exporter, saying once when exports start failing and once when they work again. */
class ReportingExporter implements SpanExporter {
  private failing = false;

  constructor(
    private readonly inner: SpanExporter,
    private readonly endpoint: string,
    private readonly log: Logger,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.FAILED && !this.failing) {
        this.failing = true;
        this.log.warn(
          { endpoint: this.endpoint, err: result.error?.message },
          'tracing: spans could not be exported (calls go on; spans are dropped until the collector answers)',
        );
      } else if (result.code === ExportResultCode.SUCCESS && this.failing) {
        this.failing = false;
        this.log.info({ endpoint: this.endpoint }, 'tracing: the collector answers again');
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
