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
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
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

export interface TracingConfig {
  /** Where spans go; unset = no tracing at all (no provider, no context manager: zero cost). */
  endpoint: string | undefined;
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
  return {
    accessLog: e.ACCESS_LOG,
    metricsPort: e.METRICS_PORT,
    tracing: {
      // The traces-specific endpoint is used as given; the general one gets /v1/traces (the exporter's rule).
      endpoint:
        e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
        (e.OTEL_EXPORTER_OTLP_ENDPOINT && `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`),
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
