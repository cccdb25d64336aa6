// An OTLP/HTTP trace receiver for tests: accepts what an OpenTelemetry exporter POSTs to
// /v1/traces (protobuf) and decodes it with the official schema's messages and field numbers
// (opentelemetry-proto, opentelemetry/proto/{collector/trace,trace,common,resource}/v1), the
// subset a trace export uses. protobufjs parses the schema text; nothing of the SDK decodes here.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

const OTLP_TRACE_PROTO = `
syntax = "proto3";
package opentelemetry.proto;
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; fixed32 flags = 16;
  string name = 5;
  enum SpanKind { SPAN_KIND_UNSPECIFIED = 0; SPAN_KIND_INTERNAL = 1; SPAN_KIND_SERVER = 2; SPAN_KIND_CLIENT = 3; SPAN_KIND_PRODUCER = 4; SPAN_KIND_CONSUMER = 5; }
  SpanKind kind = 6;
  fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10;
  message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
  repeated Event events = 11; uint32 dropped_events_count = 12;
  message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; uint32 dropped_attributes_count = 5; fixed32 flags = 6; }
  repeated Link links = 13; uint32 dropped_links_count = 14;
  Status status = 15;
}
message Status { reserved 1; string message = 2; enum StatusCode { STATUS_CODE_UNSET = 0; STATUS_CODE_OK = 1; STATUS_CODE_ERROR = 2; } StatusCode code = 3; }
`;

const Request = protobuf.parse(OTLP_TRACE_PROTO).root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');

export type AttributeValue = string | number | boolean | undefined;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  kind: 'INTERNAL' | 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER' | 'UNSPECIFIED';
  attributes: Record<string, AttributeValue>;
  links: { traceId: string; spanId: string }[];
  status: 'UNSET' | 'OK' | 'ERROR';
  resource: Record<string, AttributeValue>;
}

export interface OtlpReceiver {
  /** The base URL (what OTEL_EXPORTER_OTLP_ENDPOINT is set to). */
  url: string;
  spans: ReceivedSpan[];
  /** Raw request bodies, for searching for text that must not be there. */
  bodies: Buffer[];
  close(): Promise<void>;
}

interface DecodedKeyValue {
  key: string;
  value?: { stringValue?: string; boolValue?: boolean; intValue?: number; doubleValue?: number };
}
interface DecodedSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId?: Uint8Array;
  name: string;
  kind: string;
  attributes?: DecodedKeyValue[];
  links?: { traceId: Uint8Array; spanId: Uint8Array }[];
  status?: { code?: string };
}
interface DecodedRequest {
  resourceSpans?: { resource?: { attributes?: DecodedKeyValue[] }; scopeSpans?: { spans?: DecodedSpan[] }[] }[];
}

const hex = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString('hex') : '');

function attributesOf(list: DecodedKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? [])
    out[key] = value?.stringValue ?? value?.intValue ?? value?.doubleValue ?? value?.boolValue;
  return out;
}

export function decodeTraceExport(body: Uint8Array): ReceivedSpan[] {
  const decoded = Request.toObject(Request.decode(body), {
    longs: Number,
    enums: String,
    defaults: false,
  }) as DecodedRequest;
  const spans: ReceivedSpan[] = [];
  for (const rs of decoded.resourceSpans ?? []) {
    const resource = attributesOf(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        spans.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: s.name,
          kind: String(s.kind ?? 'SPAN_KIND_UNSPECIFIED').replace('SPAN_KIND_', '') as ReceivedSpan['kind'],
          attributes: attributesOf(s.attributes),
          links: (s.links ?? []).map((l) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId) })),
          status: String(s.status?.code ?? 'STATUS_CODE_UNSET').replace('STATUS_CODE_', '') as ReceivedSpan['status'],
          resource,
        });
  }
  return spans;
}

/** Starts a receiver on a free port: every POST /v1/traces is decoded into `spans` and answered 200. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: Buffer[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks);
      bodies.push(body);
      try {
        spans.push(...decodeTraceExport(body));
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    spans,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
