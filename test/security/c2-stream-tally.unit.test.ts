// C2, the scanners' side: what each one tells the relay about a stream cut short — the text it
// relayed, the latest usage the upstream reported, and whether that usage is the final count.
import { describe, expect, it } from 'vitest';
import { streamUsage } from '../../shared/billing/estimate.js';
import { MessagesStreamScanner } from '../../shared/providers/anthropic/stream-scanner.js';
import { ContentStreamScanner } from '../../shared/providers/gemini/stream-scanner.js';
import { ChatStreamScanner } from '../../shared/providers/openai/stream-scanner.js';
import type { StreamScanner } from '../../shared/providers/stream-scanner.js';
import { TranslatingScanner } from '../../shared/generation/translating-scanner.js';
import { CLIENT_CODECS, CODECS } from '../../shared/protocols/codecs.js';

const ev = (name: string, data: object) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
const START = ev('message_start', {
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [],
    usage: { input_tokens: 25, output_tokens: 1 },
  },
});
const delta = (text: string) => ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
const END =
  ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 40 } }) + ev('message_stop', {});
const TEXT = ['He said "hi"\\', ' and left.\n', ' 世界'];
/** The text as the stream carries it (JSON-escaped): what a relayed stream is estimated from. */
const SENT = TEXT.reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t)) - 2, 0);

/** Feeds the stream in pieces of `size` bytes (frames and characters cut between chunks). */
function feed(scanner: StreamScanner, stream: string, size = 7): StreamScanner {
  const bytes = Buffer.from(stream);
  for (let at = 0; at < bytes.length; at += size) scanner.push(bytes.subarray(at, at + size));
  return scanner;
}

const messagesStream = START + TEXT.map(delta).join('');
const gm = (text: string, output: number, finish = false) =>
  `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(finish && { finishReason: 'STOP' }) }], usageMetadata: { promptTokenCount: 25, candidatesTokenCount: output, totalTokenCount: 25 + output, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 25 }] }, modelVersion: 'm', responseId: 'r' })}\r\n\r\n`;
const contentStream = TEXT.map((t, i) => gm(t, i + 1)).join('');
const oa = (delta: object, extra: object = {}) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
const chatStream = oa({ role: 'assistant', content: '' }) + TEXT.map((t) => oa({ content: t })).join('');

describe('a stream cut short', () => {
  it("Messages passed through: message_start's count is interim; the text relayed is counted as sent", () => {
    const scanner = feed(new MessagesStreamScanner(), messagesStream);
    expect(scanner.usage).toEqual({ inputTokens: 25, outputTokens: 1, cachedTokens: 0 });
    expect(scanner.usageFinal).toBe(false);
    expect(scanner.textBytes).toBe(SENT);
    expect(streamUsage(scanner, 400)).toEqual({
      usage: { inputTokens: 25, outputTokens: Math.ceil(SENT / 4), cachedTokens: 0 },
      estimated: true,
    });
    feed(scanner, END);
    expect(scanner.usageFinal).toBe(true);
    expect(streamUsage(scanner, 400)).toEqual({
      usage: { inputTokens: 25, outputTokens: 40, cachedTokens: 0 },
      estimated: false,
    });
  });

  it("Messages passed through: tool-call arguments and thinking count, a thinking block's signature does not", () => {
    const blockDelta = (delta: object) => ev('content_block_delta', { index: 1, delta });
    const stream =
      START +
      blockDelta({ type: 'thinking_delta', thinking: 'hmm' }) +
      blockDelta({ type: 'signature_delta', signature: 'EqQBCgIYAhIM' }) +
      blockDelta({ type: 'input_json_delta', partial_json: '{"city": "Par' });
    const scanner = feed(new MessagesStreamScanner(), stream, 3);
    expect(scanner.textBytes).toBe(3 + Buffer.byteLength(JSON.stringify('{"city": "Par')) - 2);
  });

  it("generateContent passed through: the latest running usage is read back, the finishing frame's is final", () => {
    const scanner = feed(new ContentStreamScanner(), contentStream, 11);
    expect(scanner.usage).toEqual({ inputTokens: 25, outputTokens: 3, cachedTokens: 0 });
    expect(scanner.usageFinal).toBe(false);
    expect(scanner.textBytes).toBe(SENT);
    feed(scanner, gm('.', 50, true));
    expect(scanner.done).toBe(true);
    expect(scanner.usageFinal).toBe(true);
    expect(scanner.usage).toEqual({ inputTokens: 25, outputTokens: 50, cachedTokens: 0 });
  });

  it('chat completions passed through: no usage until the end; a running count on a content chunk is not final', () => {
    const scanner = feed(new ChatStreamScanner(false), chatStream, 5);
    expect(scanner.usage).toBeUndefined();
    expect(scanner.textBytes).toBe(SENT);
    expect(streamUsage(scanner, 400)).toEqual({
      usage: { inputTokens: 100, outputTokens: Math.ceil(SENT / 4), cachedTokens: 0 },
      estimated: true,
    });
    feed(scanner, oa({ content: 'x' }, { usage: { prompt_tokens: 25, completion_tokens: 4, total_tokens: 29 } }));
    expect(scanner.usage?.outputTokens).toBe(4);
    expect(scanner.usageFinal).toBe(false);
    feed(
      scanner,
      `data: ${JSON.stringify({ id: 'c', choices: [], usage: { prompt_tokens: 25, completion_tokens: 40, total_tokens: 65 } })}\n\n`,
    );
    expect(scanner.usageFinal).toBe(true);
  });

  it("translated (Messages → chat completions): message_start's count is interim, message_delta's final", () => {
    const scanner = feed(
      new TranslatingScanner(
        CODECS.anthropic.streamDecoder(),
        CLIENT_CODECS.openai.streamEncoder({ model: 'm', clientWantsUsage: false }),
      ),
      messagesStream,
    );
    expect(scanner.usage?.outputTokens).toBe(1);
    expect(scanner.usageFinal).toBe(false);
    // Decoded text, counted as UTF-8 (without the JSON escapes).
    expect(scanner.textBytes).toBe(Buffer.byteLength(TEXT.join('')));
    feed(scanner, END);
    expect(scanner.usageFinal).toBe(true);
    expect(streamUsage(scanner, 400).estimated).toBe(false);
  });

  it("translated (generateContent → Messages): only the finishing frame's usage is final", () => {
    const scanner = feed(
      new TranslatingScanner(
        CODECS.gemini.streamDecoder(),
        CLIENT_CODECS.anthropic.streamEncoder({ model: 'm', clientWantsUsage: false }),
      ),
      contentStream,
    );
    expect(scanner.usage?.outputTokens).toBe(3);
    expect(scanner.usageFinal).toBe(false);
    feed(scanner, gm('.', 50, true));
    expect(scanner.usageFinal).toBe(true);
  });
});
