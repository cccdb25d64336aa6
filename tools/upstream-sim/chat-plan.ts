// What a text answer holds, decided once per request and rendered by each protocol's handler.
import type { ResolvedBehaviour } from './behaviour.js';
import { generatedText, generatedToken } from './tokens.js';

export interface SimToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments. */
  arguments: string;
}

/** What the model "decided", in protocol-neutral terms. */
export interface ChatPlan {
  seq: number;
  promptTokens: number;
  /** Part of promptTokens "served from the prompt cache" (behaviour cachedTokens). */
  cachedTokens: number;
  completionTokens: number;
  /** A tool call instead of text: when tools were offered, not refused, and the last turn is not a tool result. */
  toolCall: SimToolCall | undefined;
  /** max_tokens decided the length (text answers only). */
  limited: boolean;
  /** The words of a prose answer (behaviour prose), one per token, repeated as needed. */
  words: readonly string[] | undefined;
}

/** What a protocol handler read from its request, in neutral terms. */
export interface ChatAsk {
  promptTokens: number;
  maxTokens: number | undefined;
  /**
   * The answer has its natural length (behaviour outputTokens) and the cap only cuts it shorter, as
   * real models do (always for Messages and generateContent; chat completions unless behaviour
   * naturalLength is false, when a cap sets the length exactly).
   */
  natural: boolean;
  /** Offered tools: name and the first property of its parameters (the argument the sim fills). */
  tools: { name: string; firstProperty: string | undefined }[];
  /** The tool named by the tool choice; null: tools refused ("none"); undefined: free choice. */
  forcedTool: string | null | undefined;
  /** The last turn carries tool results: the model answers in text. */
  answersToolResult: boolean;
  lastUserText: string;
  /** The model as the request named it. */
  model: string;
}

let seq = 0;

export function planChat(ask: ChatAsk, behaviour: ResolvedBehaviour): ChatPlan {
  const n = ++seq;
  let toolCall: SimToolCall | undefined;
  if (ask.tools.length > 0 && ask.forcedTool !== null && !ask.answersToolResult) {
    const tool = ask.tools.find((t) => t.name === ask.forcedTool) ?? ask.tools[0]!;
    const words = ask.lastUserText.replace(/\[\[sim:[^\]]*\]\]/g, '').trim();
    toolCall = {
      id: `call_sim${n.toString(36)}`,
      name: tool.name,
      arguments: JSON.stringify({ [tool.firstProperty ?? 'input']: words }),
    };
  }
  const words = behaviour.prose && !toolCall ? proseWords(ask) : undefined;
  // A prose answer's natural length is its sentence.
  const natural = words ? words.length : behaviour.outputTokens;
  const cap = ask.maxTokens;
  const limited = cap !== undefined && (!ask.natural || cap < natural);
  const completionTokens = cap === undefined ? natural : ask.natural ? Math.min(cap, natural) : cap;
  const cachedTokens = Math.min(behaviour.cachedTokens, ask.promptTokens);
  return {
    seq: n,
    promptTokens: ask.promptTokens,
    cachedTokens,
    completionTokens,
    toolCall,
    limited: limited && !toolCall,
    words,
  };
}

function proseWords(ask: ChatAsk): string[] {
  const asked = ask.lastUserText.replace(/\[\[sim:[^\]]*\]\]/g, '').trim() || 'nothing';
  return `This is ${ask.model}, a simulated model of the demo. You said: "${asked}". A real model would answer here.`.split(
    /\s+/,
  );
}

/** The i-th token of the answer, counting from 1: `tok<i> `, or a prose word led by a space as real tokens are. */
export function planToken(plan: ChatPlan, i: number): string {
  if (!plan.words) return generatedToken(i);
  const word = plan.words[(i - 1) % plan.words.length]!;
  return i === 1 ? word : ` ${word}`;
}

/** The answer's text (empty for a tool call). */
export function planText(plan: ChatPlan): string {
  if (plan.toolCall) return '';
  return plan.words ? planTextChunks(plan).join('') : generatedText(plan.completionTokens);
}

/** The text in the chunks a stream sends it in, one token each. */
export function planTextChunks(plan: ChatPlan): string[] {
  if (plan.toolCall) return [];
  const chunks: string[] = [];
  for (let i = 1; i <= plan.completionTokens; i++) chunks.push(planToken(plan, i));
  return chunks;
}

/** Tool-call arguments in the fragments a stream sends them in (three, as real providers split them). */
export function argumentFragments(args: string): string[] {
  const third = Math.ceil(args.length / 3);
  return [args.slice(0, third), args.slice(third, 2 * third), args.slice(2 * third)].filter((f) => f !== '');
}

export function firstProperty(schema: unknown): string | undefined {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  return properties && typeof properties === 'object' ? Object.keys(properties)[0] : undefined;
}
