import { isRecord } from '../../protocols/canonical/helpers.js';
import { rawForwardable } from '../raw-body.js';

// The fields the gateway reads to price or refuse a generateContent call (see rawForwardable).
const READ_ONCE = [
  '"generationConfig"',
  '"generation_config"',
  '"maxOutputTokens"',
  '"max_output_tokens"',
  '"candidateCount"',
  '"candidate_count"',
  '"responseModalities"',
  '"response_modalities"',
  '"speechConfig"',
  '"speech_config"',
];
const NEVER_RAW = ['"tools"'];

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The config as the gateway read it (shared/protocols/gemini/to-canonical.ts `field`: camelCase first), each field once, camelCase. */
function configAsRead(body: Record<string, unknown>): Record<string, unknown> {
  const config = isRecord(body.generationConfig)
    ? body.generationConfig
    : isRecord(body.generation_config)
      ? body.generation_config
      : {};
  const out: Record<string, unknown> = {};
  for (const key in config) {
    const name = camel(key);
    if (name === key || config[name] === undefined) out[name] = config[key];
  }
  return out;
}

/**
 * A generateContent body for a generateContent upstream: the client's bytes when they carry the
 * output cap the call was reserved for (and nothing that could be read two ways), else
 * re-serialised with one `generationConfig` holding it.
 */
export function contentPassthroughBody(
  request: { body: Record<string, unknown>; raw: Buffer | undefined },
  maxOutput: number,
): Buffer | string {
  const { body, raw } = request;
  const config = isRecord(body.generationConfig) ? body.generationConfig : body.generation_config;
  // One config, each of its fields spelled one way only: any reader reads what the gateway read.
  const single =
    (body.generationConfig === undefined || body.generation_config === undefined) &&
    isRecord(config) &&
    Object.keys(config).every((k) => camel(k) === k || config[camel(k)] === undefined);
  const capped = single && (config.maxOutputTokens ?? config.max_output_tokens) === maxOutput;
  if (raw && capped && rawForwardable(raw, READ_ONCE, NEVER_RAW)) return raw;
  const out: Record<string, unknown> = Object.assign({}, body);
  delete out.generation_config;
  out.generationConfig = Object.assign(configAsRead(body), { maxOutputTokens: maxOutput });
  return JSON.stringify(out);
}
