import { createHash, randomInt } from 'node:crypto';
import { GatewayError } from '../errors.js';
import { pickByHash } from './weighted.js';

export interface TemplateVersion {
  readonly id: string;
  readonly templateId: string;
  readonly text: string;
  readonly weight: number;
}

// `{{name}}`, or `{{name|default text}}` with the text used when the call gives no value.
const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]{0,63})\s*(?:\|([^{}]{0,500}))?\}\}/g;

/** The `{{name}}` variables a template text uses, in order of first use. */
export function templateVariables(text: string): string[] {
  return [...new Set([...text.matchAll(VARIABLE)].map((m) => m[1]!))];
}

/** The defaults the text declares (`{{name|default}}`, trimmed; the first one of a name counts). */
export function templateDefaults(text: string): Record<string, string> {
  const defaults: Record<string, string> = {};
  for (const [, name, fallback] of text.matchAll(VARIABLE))
    if (fallback !== undefined && !Object.hasOwn(defaults, name!)) defaults[name!] = fallback.trim();
  return defaults;
}

/**
 * Fills `{{name}}` from `values`, else from the variable's own `|default`; a variable with neither
 * is a 400 naming it (never sent half-filled).
 */
export function renderTemplate(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(VARIABLE, (_, name: string, fallback: string | undefined) => {
    const value = (Object.hasOwn(values, name) ? values[name] : undefined) ?? fallback?.trim();
    if (value === undefined) {
      throw new GatewayError(
        'invalid_request',
        400,
        `prompt template variable '${name}' has no value: send it in X-Service-Template-Vars`,
        { param: 'X-Service-Template-Vars' },
      );
    }
    return value;
  });
}

/**
 * The version a call runs: random by weight, or — with a session id — the same version for every
 * call of that session (a hash of template and session, so sessions spread by weight too).
 */
export function chooseVersion(
  versions: readonly TemplateVersion[],
  sessionId: string | undefined,
): TemplateVersion | undefined {
  if (versions.length <= 1) return versions[0];
  const hash =
    sessionId === undefined
      ? randomInt(0, 0x1_0000_0000)
      : createHash('sha256').update(`${versions[0]!.templateId}\0${sessionId}`).digest().readUInt32BE(0);
  return pickByHash(versions, hash);
}

/** `X-Service-Template-Vars`: a JSON object of string values (numbers and booleans become text). */
export function parseTemplateVars(header: string | undefined): Record<string, string> {
  if (header === undefined || header === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(header);
  } catch {
    throw new GatewayError('invalid_request', 400, 'X-Service-Template-Vars must be a JSON object', {
      param: 'X-Service-Template-Vars',
    });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new GatewayError('invalid_request', 400, 'X-Service-Template-Vars must be a JSON object', {
      param: 'X-Service-Template-Vars',
    });
  }
  const vars: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new GatewayError(
        'invalid_request',
        400,
        `X-Service-Template-Vars.${name} must be a string, number or boolean`,
        { param: 'X-Service-Template-Vars' },
      );
    }
    vars[name] = String(value);
  }
  return vars;
}
