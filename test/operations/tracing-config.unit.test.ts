import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.js';

// The standard OTEL_* variables as the gateway reads them: what turns tracing off, the protocol and
// exporter it cannot follow (one notice each), and the propagators.
const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
const tracing = (env: Record<string, string>) => parseConfig({ ...ENDPOINT, ...env }).telemetry.tracing;

describe('what turns tracing off', () => {
  it('is on with an endpoint, exporting otlp to <endpoint>/v1/traces, with both propagators by default', () => {
    expect(tracing({})).toMatchObject({
      endpoint: 'http://collector:4318/v1/traces',
      offBecause: undefined,
      propagators: ['tracecontext', 'baggage'],
      notices: [],
    });
    expect(parseConfig({}).telemetry.tracing).toMatchObject({
      endpoint: undefined,
      offBecause: undefined,
      notices: [],
    });
  });

  it('OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn it off, saying why', () => {
    expect(tracing({ OTEL_SDK_DISABLED: 'true' })).toMatchObject({
      endpoint: undefined,
      offBecause: 'OTEL_SDK_DISABLED=true',
      notices: [],
    });
    expect(tracing({ OTEL_SDK_DISABLED: 'false' }).endpoint).toBe('http://collector:4318/v1/traces');
    expect(tracing({ OTEL_TRACES_EXPORTER: 'none' })).toMatchObject({
      endpoint: undefined,
      offBecause: 'OTEL_TRACES_EXPORTER=none',
    });
    expect(tracing({ OTEL_TRACES_EXPORTER: ' OTLP ' }).endpoint).toBe('http://collector:4318/v1/traces');
    expect(tracing({ OTEL_TRACES_EXPORTER: '' }).endpoint).toBe('http://collector:4318/v1/traces');
  });

  it('an exporter it does not have is noticed: ignored beside otlp, tracing off alone', () => {
    expect(tracing({ OTEL_TRACES_EXPORTER: 'otlp,console' })).toMatchObject({
      endpoint: 'http://collector:4318/v1/traces',
      notices: ['tracing: OTEL_TRACES_EXPORTER console not supported (ignored); otlp is used'],
    });
    expect(tracing({ OTEL_TRACES_EXPORTER: 'zipkin' })).toMatchObject({
      endpoint: undefined,
      notices: ['tracing: OTEL_TRACES_EXPORTER zipkin not supported; only otlp is, so no spans are exported'],
    });
  });

  it('refuses a malformed OTEL_SDK_DISABLED, naming it', () => {
    expect(() => tracing({ OTEL_SDK_DISABLED: 'maybe' })).toThrow(/OTEL_SDK_DISABLED/);
  });
});

describe('the OTLP protocol', () => {
  it('http/protobuf (what is exported) says nothing; another protocol gives one notice, the traces variable first', () => {
    expect(tracing({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }).notices).toEqual([]);
    expect(tracing({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).notices).toEqual([
      'tracing: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported; spans are exported as http/protobuf (OTLP/HTTP) to the configured endpoint',
    ]);
    expect(
      tracing({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }).notices,
    ).toEqual([]);
    expect(tracing({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }).notices).toEqual([
      expect.stringContaining('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json is not supported'),
    ]);
  });

  it('says nothing while tracing is off', () => {
    expect(parseConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).telemetry.tracing.notices).toEqual([]);
    expect(tracing({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_SDK_DISABLED: 'true' }).notices).toEqual([]);
  });
});

describe('OTEL_PROPAGATORS', () => {
  it('takes tracecontext and baggage in any order and case; none means neither', () => {
    expect(tracing({ OTEL_PROPAGATORS: 'tracecontext' }).propagators).toEqual(['tracecontext']);
    expect(tracing({ OTEL_PROPAGATORS: 'Baggage, tracecontext' }).propagators).toEqual(['tracecontext', 'baggage']);
    expect(tracing({ OTEL_PROPAGATORS: 'none' }).propagators).toEqual([]);
  });

  it('notices the propagators it does not have and goes on with the others', () => {
    expect(tracing({ OTEL_PROPAGATORS: 'tracecontext,b3,jaeger' })).toMatchObject({
      propagators: ['tracecontext'],
      notices: ['tracing: OTEL_PROPAGATORS b3, jaeger not supported (ignored); only tracecontext and baggage are'],
    });
  });
});
