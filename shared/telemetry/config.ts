import { z } from 'zod';

const positive = z.coerce.number().int().min(1);

/**
 * The operations variables, spread into the one environment schema in shared/config.ts: the access
 * log, the API's metrics port and the standard OpenTelemetry trace variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/). The OTLP
 * exporter and the resource read their own variables (endpoint, headers, timeout, compression,
 * OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) from the environment; they are listed here so a
 * wrong value is named at start rather than ignored.
 */
export const telemetryEnvShape = {
  ACCESS_LOG: z.stringbool().default(true),
  /** The API process's /metrics and /healthz (a port of their own, like the worker's: never the public one). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9090),
  OTEL_SDK_DISABLED: z.stringbool().default(false),
  /** A comma list (the spec's form; unset = `otlp`): `otlp` exports, `none` turns tracing off; other names are noticed and ignored. */
  OTEL_TRACES_EXPORTER: z.string().default(''),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.string().optional(),
  /** A comma list of `tracecontext`, `baggage`, `none`; unset = `tracecontext,baggage` (the spec's default). */
  OTEL_PROPAGATORS: z.string().default(''),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  OTEL_RESOURCE_ATTRIBUTES: z.string().optional(),
  OTEL_TRACES_SAMPLER: z
    .enum([
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ])
    .default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
  OTEL_BSP_SCHEDULE_DELAY: positive.default(5_000),
  OTEL_BSP_EXPORT_TIMEOUT: positive.default(30_000),
  OTEL_BSP_MAX_QUEUE_SIZE: positive.default(2_048),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: positive.default(512),
};

type TelemetryEnv = z.infer<z.ZodObject<typeof telemetryEnvShape>>;

export type SamplerName = TelemetryEnv['OTEL_TRACES_SAMPLER'];

/** The propagators the gateway has: W3C trace context and W3C baggage (both in @opentelemetry/core). */
export type PropagatorName = 'tracecontext' | 'baggage';

export interface TracingConfig {
  /** Where spans go; unset = no tracing at all (no provider, no context manager: zero cost). */
  endpoint: string | undefined;
  /** Why tracing is off although an endpoint is set (OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none): said at start. */
  offBecause: string | undefined;
  /** What a client's headers are read for and an upstream request gets (OTEL_PROPAGATORS); empty = `none`. */
  propagators: PropagatorName[];
  /** Settings the gateway does not follow, each said in one `warn` line at start (tracing goes on without them). */
  notices: string[];
  serviceName: string;
  sampler: SamplerName;
  /** The ratio of the `*traceidratio` samplers (default 1). */
  samplerArg: number;
  batch: {
    scheduledDelayMillis: number;
    exportTimeoutMillis: number;
    maxQueueSize: number;
    maxExportBatchSize: number;
  };
}

export interface TelemetryConfig {
  accessLog: boolean;
  metricsPort: number;
  tracing: TracingConfig;
}

/** The batch size may not exceed the queue (the SDK would refuse it): named at start. */
export function telemetryEnvIssues(e: TelemetryEnv): string[] {
  return e.OTEL_BSP_MAX_EXPORT_BATCH_SIZE > e.OTEL_BSP_MAX_QUEUE_SIZE
    ? ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE: may not exceed OTEL_BSP_MAX_QUEUE_SIZE']
    : [];
}

export function telemetryConfig(e: TelemetryEnv): TelemetryConfig {
  // The traces-specific endpoint is used as given; the general one gets /v1/traces (the exporter's rule).
  const configured =
    e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (e.OTEL_EXPORTER_OTLP_ENDPOINT && `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
  const exporters = listOf(e.OTEL_TRACES_EXPORTER, ['otlp']);
  // Off by choice (said at start in an info line), or for want of an exporter we have (a notice).
  const offBecause = e.OTEL_SDK_DISABLED
    ? 'OTEL_SDK_DISABLED=true'
    : exporters.includes('none')
      ? `OTEL_TRACES_EXPORTER=${e.OTEL_TRACES_EXPORTER}`
      : undefined;
  const endpoint = offBecause || !exporters.includes('otlp') ? undefined : configured;
  const propagators = listOf(e.OTEL_PROPAGATORS, PROPAGATORS);
  return {
    accessLog: e.ACCESS_LOG,
    metricsPort: e.METRICS_PORT,
    tracing: {
      endpoint,
      offBecause: configured ? offBecause : undefined,
      propagators: propagators.includes('none') ? [] : PROPAGATORS.filter((p) => propagators.includes(p)),
      notices:
        configured && !e.OTEL_SDK_DISABLED && !exporters.includes('none')
          ? tracingNotices(e, exporters, propagators)
          : [],
      serviceName: e.OTEL_SERVICE_NAME ?? 'model-gateway',
      sampler: e.OTEL_TRACES_SAMPLER,
      samplerArg: e.OTEL_TRACES_SAMPLER_ARG ?? 1,
      batch: {
        scheduledDelayMillis: e.OTEL_BSP_SCHEDULE_DELAY,
        exportTimeoutMillis: e.OTEL_BSP_EXPORT_TIMEOUT,
        maxQueueSize: e.OTEL_BSP_MAX_QUEUE_SIZE,
        maxExportBatchSize: e.OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
      },
    },
  };
}

const PROPAGATORS: readonly PropagatorName[] = ['tracecontext', 'baggage'];
const EXPORTERS = ['otlp', 'none'];
/** What the OTLP exporter speaks (@opentelemetry/exporter-trace-otlp-proto). */
const PROTOCOL = 'http/protobuf';

/** A comma list; set but empty is unset, as the spec reads it. */
function listOf(value: string, unset: readonly string[]): string[] {
  const list = value
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);
  return list.length > 0 ? list : [...unset];
}

/**
 * The standard settings the gateway cannot follow. The spec asks an SDK to warn about a value it
 * does not know and go on without it; so does the gateway, in one line each: another OTLP protocol
 * (spans still go to the endpoint, as http/protobuf), an exporter or propagator it does not have.
 */
function tracingNotices(e: TelemetryEnv, exporters: string[], propagators: string[]): string[] {
  const unknownExporters = exporters.filter((x) => !EXPORTERS.includes(x));
  if (!exporters.includes('otlp'))
    return [
      `tracing: OTEL_TRACES_EXPORTER ${unknownExporters.join(', ')} not supported; only otlp is, so no spans are exported`,
    ];
  const notices: string[] = [];
  const [protocolVar, protocol] = e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL]
    : ['OTEL_EXPORTER_OTLP_PROTOCOL', e.OTEL_EXPORTER_OTLP_PROTOCOL];
  if (protocol !== undefined && protocol.trim() !== PROTOCOL)
    notices.push(
      `tracing: ${protocolVar}=${protocol} is not supported; spans are exported as ${PROTOCOL} (OTLP/HTTP) to the configured endpoint`,
    );
  if (unknownExporters.length > 0)
    notices.push(`tracing: OTEL_TRACES_EXPORTER ${unknownExporters.join(', ')} not supported (ignored); otlp is used`);
  const unknownPropagators = propagators.filter((p) => p !== 'none' && !(PROPAGATORS as string[]).includes(p));
  if (unknownPropagators.length > 0)
    notices.push(
      `tracing: OTEL_PROPAGATORS ${unknownPropagators.join(', ')} not supported (ignored); only tracecontext and baggage are`,
    );
  return notices;
}
