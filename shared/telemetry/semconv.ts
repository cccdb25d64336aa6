/**
 * The attribute names of OpenTelemetry semantic conventions the gateway's spans carry. The stable
 * ones (HTTP, URL, error, service) come from `@opentelemetry/semantic-conventions`; the GenAI and
 * messaging ones are still "incubating", and the package asks that those be copied rather than
 * imported from its `incubating` entry point, which may rename them in a minor release (its
 * README, "Unstable semconv"). The copies below are checked against the installed package by
 * test/operations/semconv.unit.test.ts, so an upgrade that renames one fails a test, not a trace.
 */
export {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';

export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name' as const;
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name' as const;
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model' as const;
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model' as const;
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens' as const;
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens' as const;
export const GEN_AI_OPERATION_NAME_VALUE_CHAT = 'chat' as const;
export const GEN_AI_OPERATION_NAME_VALUE_EMBEDDINGS = 'embeddings' as const;
export const GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT = 'generate_content' as const;

export const ATTR_MESSAGING_SYSTEM = 'messaging.system' as const;
export const ATTR_MESSAGING_DESTINATION_NAME = 'messaging.destination.name' as const;
