import { GatewayError } from '../errors.js';
import { isRecord } from '../protocols/canonical/helpers.js';
import type { ClientProtocol } from '../protocols/canonical/types.js';
import { field } from '../protocols/gemini/to-canonical.js';

// A call is charged from the catalog's token prices. Options an upstream bills beyond those tokens
// (audio, built-in tools billed per use, priority tiers) would be delivered below their price: the
// ones that change the answer are refused by name, the ones that only change the tier are removed.

const refused = (param: string, what: string) =>
  new GatewayError(
    'unsupported_parameter',
    400,
    `'${param}' is not offered through the gateway: ${what} is billed beyond the model's token prices`,
    { param },
  );

/** Top-level fields removed before a same-protocol upstream gets the body (it then bills its default tier). */
export const STRIPPED_FIELDS: Readonly<Record<ClientProtocol, readonly string[]>> = {
  openai: ['service_tier'],
  anthropic: ['service_tier', 'inference_geo'],
  gemini: [],
  responses: [],
};

// Messages tools the client runs itself (billed as tokens only); every other typed tool is a server tool.
const CLIENT_TOOL_PREFIXES = ['bash_', 'text_editor_', 'computer_', 'memory_'];
const CONTENT_TOOL_KEYS = new Set(['functionDeclarations', 'function_declarations']);

function eachTool(body: Record<string, unknown>, check: (tool: Record<string, unknown>, i: number) => void): void {
  if (Array.isArray(body.tools))
    body.tools.forEach((tool, i) => {
      if (isRecord(tool)) check(tool, i);
    });
}

function refuseChat(body: Record<string, unknown>): void {
  if (Array.isArray(body.modalities) && body.modalities.includes('audio')) throw refused('modalities', 'audio output');
  if (body.audio !== undefined && body.audio !== null) throw refused('audio', 'audio output');
  if (body.web_search_options !== undefined && body.web_search_options !== null)
    throw refused('web_search_options', 'web search');
  eachTool(body, (tool, i) => {
    if (tool.type !== 'function' && tool.type !== 'custom') throw refused(`tools[${i}].type`, 'a built-in tool');
  });
  if (!Array.isArray(body.messages)) return;
  body.messages.forEach((message, i) => {
    const content = isRecord(message) ? message.content : undefined;
    if (!Array.isArray(content)) return;
    content.forEach((part, j) => {
      if (isRecord(part) && part.type === 'input_audio')
        throw refused(`messages[${i}].content[${j}].type`, 'audio input');
    });
  });
}

function refuseMessages(body: Record<string, unknown>): void {
  eachTool(body, (tool, i) => {
    const type = tool.type;
    if (type === undefined || type === null || type === 'custom') return;
    if (typeof type === 'string' && CLIENT_TOOL_PREFIXES.some((p) => type.startsWith(p))) return;
    throw refused(`tools[${i}].type`, 'a server tool');
  });
  if (body.mcp_servers !== undefined && body.mcp_servers !== null) throw refused('mcp_servers', 'the MCP connector');
  if (body.container !== undefined && body.container !== null) throw refused('container', 'a code execution container');
}

function refuseContent(body: Record<string, unknown>): void {
  eachTool(body, (tool, i) => {
    for (const key in tool)
      if (!CONTENT_TOOL_KEYS.has(key) && tool[key] !== null) throw refused(`tools[${i}].${key}`, 'a built-in tool');
  });
  const config = field(body, 'generationConfig');
  if (!isRecord(config)) return;
  const modalities = field(config, 'responseModalities');
  if (Array.isArray(modalities) && modalities.some((m) => String(m).toUpperCase() !== 'TEXT'))
    throw refused('generationConfig.responseModalities', 'audio or image output');
  const speech = field(config, 'speechConfig');
  if (speech !== undefined && speech !== null) throw refused('generationConfig.speechConfig', 'audio output');
}

/** Refuses (400 `unsupported_parameter` naming the field) a billable option the price model lacks. */
export function refuseUnpricedOptions(protocol: ClientProtocol, body: Record<string, unknown>): void {
  if (protocol === 'openai') refuseChat(body);
  else if (protocol === 'anthropic') refuseMessages(body);
  else if (protocol === 'gemini') refuseContent(body);
  // Responses is always translated, and the translation refuses built-in tools itself.
}
