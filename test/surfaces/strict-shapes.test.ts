import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientProtocol } from '../../shared/protocols/canonical/types.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { answerViolations, sseFrames, streamViolations } from '../support/wire-schemas/index.js';
import { MODEL_OF, surfacesCatalog } from './catalog.js';
import { PROTOCOLS, surfaceRequest, WEATHER_TOOL, type Ask } from './protocol-clients.js';

// Every client surface × every upstream protocol, text and tool call, streamed and not, through a
// running gateway: each answer parses strictly against its protocol's published shape (no unknown
// field, no `null` where the real API omits the field, the events in the real order). Same-protocol
// calls check the simulator's own answers, passed through; the others check the translations.
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ catalog: surfacesCatalog, sim: { apiKey: 'sim-upstream-secret' } });
});
afterAll(() => gw?.close());

const CLIENTS: ClientProtocol[] = ['openai', 'responses', 'anthropic', 'gemini'];

function request(client: ClientProtocol, key: string, ask: Ask): { url: string; init: RequestInit } {
  if (client !== 'responses') return surfaceRequest(client, gw.url, key, ask);
  const body: Record<string, unknown> = { model: ask.model, input: ask.text, stream: ask.stream };
  if (ask.tools) body.tools = [{ type: 'function', ...WEATHER_TOOL }];
  return {
    url: `${gw.url}/v1/responses`,
    init: {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    },
  };
}

describe('4 client surfaces × 3 upstream protocols, parsed strictly', () => {
  for (const client of CLIENTS) {
    for (const upstream of PROTOCOLS) {
      for (const stream of [false, true]) {
        for (const tools of [false, true]) {
          it(`${client} ← ${upstream}, ${tools ? 'tool call' : 'text'}, ${stream ? 'streamed' : 'whole'}`, async () => {
            const acct = await gw.account({ balance: 1_000_000 });
            const { url, init } = request(client, acct.key, {
              model: MODEL_OF[upstream],
              text: 'what is the weather in Paris',
              stream,
              tools,
            });
            const res = await fetch(url, init);
            expect(res.status).toBe(200);
            const text = await res.text();
            if (!stream) {
              expect(answerViolations(client, JSON.parse(text))).toEqual([]);
              return;
            }
            expect(streamViolations(client, text)).toEqual([]);
            if (client === 'anthropic') {
              // message_start announces the prompt's tokens, from the upstream or the gateway's own count.
              const start = JSON.parse(sseFrames(text)[0]!.data) as { message: { usage: { input_tokens: number } } };
              expect(start.message.usage.input_tokens).toBeGreaterThan(0);
            }
          });
        }
      }
    }
  }
});
