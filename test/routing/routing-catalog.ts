/** A catalog for routing tests: models that fail in set ways, priced apart, several accounts, two groups. */
export const PRICES = {
  cheap: { input_per_mtok: 1_000_000, output_per_mtok: 1_000_000 },
  mid: { input_per_mtok: 2_000_000, output_per_mtok: 4_000_000 },
  dear: { input_per_mtok: 10_000_000, output_per_mtok: 30_000_000 },
};

export const SIM_MODELS = {
  'up-500': { fault: 'error500' as const },
  'up-429': { fault: 'error429' as const, retryAfterSeconds: 1 },
  'up-cut': { fault: 'errorMidStream' as const },
};

export function routingCatalog(simUrl: string) {
  const p = (id: string) => ({ id, protocol: 'openai', base_url: `${simUrl}/v1`, api_key: 'sim-upstream-secret' });
  return {
    providers: [
      p('alpha'),
      p('beta'),
      {
        ...p('multi'),
        accounts: [
          { id: 'a1', api_key: 'sim-upstream-secret', weight: 3 },
          { id: 'a2', api_key: 'sim-upstream-secret', weight: 1 },
        ],
      },
    ],
    models: [
      {
        id: 'fails-500',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'alpha', upstream_model: 'up-500' }],
        pricing: PRICES.dear,
        max_output_tokens: 100,
      },
      {
        id: 'fails-429',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'alpha', upstream_model: 'up-429' }],
        pricing: PRICES.mid,
        max_output_tokens: 100,
      },
      {
        id: 'cuts',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'alpha', upstream_model: 'up-cut' }],
        pricing: PRICES.mid,
        max_output_tokens: 100,
      },
      {
        id: 'good',
        endpoints: ['chat/completions'],
        routes: [
          { provider: 'alpha', upstream_model: 'up-good' },
          { provider: 'beta', upstream_model: 'up-good' },
        ],
        pricing: PRICES.cheap,
        quality: 50,
        auto: true,
        max_output_tokens: 100,
      },
      {
        id: 'best',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'beta', upstream_model: 'up-best' }],
        pricing: PRICES.dear,
        quality: 95,
        auto: true,
        max_output_tokens: 100,
      },
      {
        id: 'middle',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'alpha', upstream_model: 'up-mid' }],
        pricing: PRICES.mid,
        quality: 70,
        auto: true,
        max_output_tokens: 100,
      },
      {
        id: 'spread',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'multi', upstream_model: 'up-spread' }],
        pricing: PRICES.cheap,
        max_output_tokens: 100,
      },
    ],
    groups: [
      { id: 'default', models: ['*'] },
      { id: 'no-best', models: ['good', 'middle', 'fails-500', 'fails-429'] },
      { id: 'no-auto', models: ['fails-500'] },
    ],
  };
}
