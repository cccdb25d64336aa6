import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { usageRecords, waitForUsage } from '../support/money.js';
import { MODEL_OF, PRICING, surfacesCatalog, UPSTREAM_OF } from './catalog.js';
import { FINISH, PROTOCOLS, readAnswer, surfaceRequest } from './protocol-clients.js';

// Every client protocol × every upstream protocol, text and tool call, streamed and not: the answer
// is well formed in the client's protocol and the usage record is exact.
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ catalog: surfacesCatalog, sim: { apiKey: 'sim-upstream-secret' } });
  for (const upstream of Object.values(UPSTREAM_OF))
    gw.sim.setModel(upstream, { cachedTokens: 4, naturalLength: true });
});
afterAll(() => gw?.close());

const TEXT = 'what is the weather in Paris';
// The simulator's rule: 3 per request + 3 per turn + the words; 16 tokens out; 4 of the input cached.
const INPUT = 3 + 3 + 6;
const OUTPUT = 16;
const CACHED = 4;
const CHARGE = Math.ceil(
  ((INPUT - CACHED) * PRICING.input_per_mtok +
    CACHED * PRICING.cached_input_per_mtok +
    OUTPUT * PRICING.output_per_mtok) /
    1_000_000,
);

const SURFACE_ID = { openai: 'chat-completions', anthropic: 'messages', gemini: 'generate-content' } as const;

describe('3 surfaces × 3 upstream protocols', () => {
  for (const surface of PROTOCOLS) {
    for (const upstream of PROTOCOLS) {
      for (const stream of [false, true]) {
        for (const tools of [false, true]) {
          it(`${surface} client → ${upstream} upstream, ${tools ? 'tool call' : 'text'}, ${stream ? 'streamed' : 'whole'}`, async () => {
            const acct = await gw.account({ balance: 1_000_000 });
            const { url, init } = surfaceRequest(surface, gw.url, acct.key, {
              model: MODEL_OF[upstream],
              text: TEXT,
              stream,
              tools,
            });
            const before = gw.sim.stats().byModel[UPSTREAM_OF[upstream]] ?? 0;
            const res = await fetch(url, init);
            expect(res.headers.get('x-request-id')).toBeTruthy();
            const answer = await readAnswer(surface, res, stream);
            expect(gw.sim.stats().byModel[UPSTREAM_OF[upstream]]).toBe(before + 1);
            if (tools) {
              expect(answer.toolCall).toEqual({ name: 'get_weather', args: { city: TEXT } });
              expect(answer.finish).toBe(FINISH[surface].tool);
            } else {
              expect(answer.text).toBe(Array.from({ length: OUTPUT }, (_, i) => `tok${i + 1} `).join(''));
              expect(answer.finish).toBe(FINISH[surface].stop);
            }
            expect(answer.usage).toEqual({ input: INPUT, cached: CACHED, output: OUTPUT });
            await waitForUsage(gw, acct.userId, 1);
            const [record] = await usageRecords(gw.services.db, acct.userId);
            expect(record).toMatchObject({
              model: MODEL_OF[upstream],
              endpoint: 'chat/completions',
              surface: SURFACE_ID[surface],
              status_code: 200,
              stream,
              input_tokens: INPUT,
              cached_tokens: CACHED,
              output_tokens: OUTPUT,
              usage_estimated: false,
            });
            expect(Number(record!.charged_micro_usd)).toBe(CHARGE);
          });
        }
      }
    }
  }
});
