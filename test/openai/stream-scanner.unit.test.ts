import { describe, expect, it } from 'vitest';
import { ChatStreamScanner } from '../../shared/providers/openai/stream-scanner.js';

const chunk = (i: number, extra = '') =>
  `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"w${i}"}${extra}}]}\n\n`;
const usageOnly =
  'data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}\n\n';
const finishWithUsage =
  'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}\n\n';
const done = 'data: [DONE]\n\n';

/** Feeds the stream in pieces of `size` bytes; returns what is forwarded, as text. */
function run(
  stream: string,
  clientWantsUsage: boolean,
  size = stream.length,
): { out: string; scanner: ChatStreamScanner } {
  const scanner = new ChatStreamScanner(clientWantsUsage);
  const bytes = Buffer.from(stream);
  let out = '';
  for (let i = 0; i < bytes.length; i += size) out += scanner.push(bytes.subarray(i, i + size))?.toString('utf8') ?? '';
  out += scanner.flush()?.toString('utf8') ?? '';
  return { out, scanner };
}

describe('the SSE scanner', () => {
  const stream = chunk(1) + chunk(2) + chunk(3, ',"finish_reason":"stop"') + usageOnly + done;

  it.each([1, 7, 64, 100_000])(
    'finds usage in an empty-choices event and withholds it and [DONE] (pieces of %i bytes)',
    (size) => {
      const { out, scanner } = run(stream, false, size);
      expect(out).toBe(chunk(1) + chunk(2) + chunk(3, ',"finish_reason":"stop"'));
      expect(scanner.usage).toEqual({ inputTokens: 7, outputTokens: 3, cachedTokens: 0 });
      expect(scanner.done).toBe(true);
      expect(scanner.usageFinal).toBe(true);
      expect(scanner.textBytes).toBe(6); // w1 w2 w3: the text relayed, the estimate of a stream that ends early
    },
  );

  it('passes the usage event through, byte for byte, when the client asked for it', () => {
    const { out, scanner } = run(stream, true, 13);
    expect(out).toBe(chunk(1) + chunk(2) + chunk(3, ',"finish_reason":"stop"') + usageOnly);
    expect(scanner.textBytes).toBe(6);
  });

  it('captures usage that arrives with the finish event and strips it there when not asked for', () => {
    const { out, scanner } = run(chunk(1) + finishWithUsage + done, false);
    expect(scanner.usage).toEqual({ inputTokens: 5, outputTokens: 2, cachedTokens: 0 });
    const finish = JSON.parse(out.split('\n\n')[1]!.slice('data: '.length)) as Record<string, unknown>;
    expect(finish.usage).toBeUndefined();
    expect(finish.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'stop' }]);
  });

  it('treats "[DONE]" inside content as content, and stops only at the real end marker', () => {
    const tricky = 'data: {"choices":[{"index":0,"delta":{"content":"[DONE]"}}]}\n\n';
    const { out, scanner } = run(tricky + done, false);
    expect(out).toBe(tricky);
    expect(scanner.done).toBe(true);
  });

  it('withholds an upstream error event and reports it', () => {
    const { out, scanner } = run(`${chunk(1)}data: {"error":{"message":"key sk-upstream invalid"}}\n\n`, false);
    expect(out).toBe(chunk(1));
    expect(scanner.upstreamError).toBe(true);
    expect(scanner.done).toBe(false);
  });

  it.each([1, 5, 1000])('keeps byte positions right around multi-byte characters (pieces of %i bytes)', (size) => {
    const wide = 'data: {"choices":[{"index":0,"delta":{"content":"héllo 世界 🙂"}}]}\n\n';
    const { out, scanner } = run(wide + wide + usageOnly + done, false, size);
    expect(out).toBe(wide + wide);
    expect(scanner.usage?.inputTokens).toBe(7);
  });

  it('normalises CRLF line endings and forwards a last event that had no blank line after it', () => {
    const { out, scanner } = run(`${chunk(1).replace(/\n/g, '\r\n')}data: {"choices":[]}`, false, 5);
    expect(out).toBe(`${chunk(1)}data: {"choices":[]}\n\n`);
    expect(scanner.textBytes).toBe(2);
  });
});
