import type { ChatProtocol } from '../protocols/canonical/types.js';
import { anthropicAdapter } from './anthropic/adapter.js';
import type { ChatAdapter } from './chat-adapter.js';
import { geminiAdapter } from './gemini/adapter.js';
import { openAiAdapter } from './openai/chat.js';

/** The upstream adapter of each text protocol, as the catalog's provider `protocol` names it. */
export const CHAT_ADAPTERS: Readonly<Record<ChatProtocol, ChatAdapter>> = {
  openai: openAiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
};

export function isChatProtocol(protocol: string): protocol is ChatProtocol {
  return protocol === 'openai' || protocol === 'anthropic' || protocol === 'gemini';
}
