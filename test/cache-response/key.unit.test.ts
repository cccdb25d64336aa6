import { describe, expect, it } from 'vitest';
import { embeddingsCacheKey, stableJson, textCacheKey } from '../../shared/response-cache/key.js';
import { cacheTtlOf, parseCacheTtlHeader } from '../../shared/response-cache/ttl.js';

const ACCOUNT = '11111111-1111-4111-8111-111111111111';
const chat = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-x',
  messages: [{ role: 'user', content: 'hello' }],
  temperature: 0.7,
  ...extra,
});

describe('the cache key', () => {
  it('ignores key order, whitespace, stream, user and metadata', () => {
    const a = textCacheKey(ACCOUNT, 'openai', 'gpt-x', chat());
    const reordered = JSON.parse(
      '{ "temperature": 0.7, "messages": [ {"content":"hello", "role":"user"} ], "model": "gpt-x" }',
    );
    expect(textCacheKey(ACCOUNT, 'openai', 'gpt-x', reordered)).toBe(a);
    expect(
      textCacheKey(ACCOUNT, 'openai', 'gpt-x', chat({ stream: true, stream_options: { include_usage: true } })),
    ).toBe(a);
    expect(textCacheKey(ACCOUNT, 'openai', 'gpt-x', chat({ user: 'u-1', metadata: { run: '7' } }))).toBe(a);
  });

  it('differs by account, model as sent, content, sampling, tools and the fields that change an answer', () => {
    const a = textCacheKey(ACCOUNT, 'openai', 'gpt-x', chat());
    const others = [
      textCacheKey('22222222-2222-4222-8222-222222222222', 'openai', 'gpt-x', chat()),
      textCacheKey(ACCOUNT, 'openai', '@preset/fast', chat()),
      textCacheKey(ACCOUNT, 'openai', 'gpt-x', chat({ messages: [{ role: 'user', content: 'hello ' }] })),
      textCacheKey(ACCOUNT, 'openai', 'gpt-x', chat({ temperature: 0.8 })),
      textCacheKey(ACCOUNT, 'openai', 'gpt-x', chat({ max_tokens: 5 })),
      textCacheKey(ACCOUNT, 'openai', 'gpt-x', chat({ response_format: { type: 'json_object' } })),
      textCacheKey(ACCOUNT, 'openai', 'gpt-x', chat({ seed: 3 })),
      textCacheKey(ACCOUNT, 'openai', 'gpt-x', chat({ reasoning_effort: 'high' })),
      textCacheKey(
        ACCOUNT,
        'openai',
        'gpt-x',
        chat({ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] }),
      ),
    ];
    expect(new Set([a, ...others]).size).toBe(others.length + 1);
  });

  it('is one rule for every surface: the same canonical request, the same key', () => {
    const openai = textCacheKey(ACCOUNT, 'openai', 'm', {
      model: 'm',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      max_tokens: 10,
    });
    const messages = textCacheKey(ACCOUNT, 'anthropic', 'm', {
      model: 'm',
      system: 'be brief',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 10,
    });
    expect(messages).toBe(openai);
  });

  it('cannot be made for a request the canonical form cannot carry (the call bypasses the cache)', () => {
    expect(textCacheKey(ACCOUNT, 'openai', 'gpt-x', chat({ audio: { voice: 'x' } }))).toBeUndefined();
  });

  it('keys embeddings by surface, model and body, without user', () => {
    const a = embeddingsCacheKey(ACCOUNT, 'embeddings', 'e', { model: 'e', input: ['a', 'b'] });
    expect(embeddingsCacheKey(ACCOUNT, 'embeddings', 'e', { input: ['a', 'b'], user: 'x', model: 'e' })).toBe(a);
    expect(embeddingsCacheKey(ACCOUNT, 'embeddings', 'e', { model: 'e', input: ['b', 'a'] })).not.toBe(a);
    expect(embeddingsCacheKey(ACCOUNT, 'content-embeddings', 'e', { model: 'e', input: ['a', 'b'] })).not.toBe(a);
  });

  it('serialises with sorted keys at every level', () => {
    expect(stableJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: undefined } })).toBe(
      '{"a":{"d":[2,{"e":0,"f":1}]},"b":1}',
    );
  });
});

describe('the TTL', () => {
  it('reads the header: whole seconds from 0 to 30 days, else a 400 naming it', () => {
    expect(parseCacheTtlHeader(undefined)).toBeUndefined();
    expect(parseCacheTtlHeader('0')).toBe(0);
    expect(parseCacheTtlHeader(' 600 ')).toBe(600);
    expect(parseCacheTtlHeader('2592000')).toBe(2_592_000);
    for (const bad of ['-1', '2592001', 'NaN', '1.5', '1e3', '', '99999999999']) {
      expect(() => parseCacheTtlHeader(bad), bad).toThrow(/X-Service-Cache-TTL/);
    }
  });

  it('takes the header over the preset, the preset over the key; off by default', () => {
    expect(cacheTtlOf(undefined, undefined, null)).toBe(0);
    expect(cacheTtlOf(undefined, null, 60)).toBe(60);
    expect(cacheTtlOf(undefined, 0, 60)).toBe(0);
    expect(cacheTtlOf(undefined, 30, 60)).toBe(30);
    expect(cacheTtlOf(10, 30, 60)).toBe(10);
    expect(cacheTtlOf(0, 30, 60)).toBe(0);
  });
});
