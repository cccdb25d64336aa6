/** A catalog document pointing at a simulator; tests adjust prices and routes through `overrides`. */
export function testCatalog(simUrl: string, overrides: Record<string, unknown> = {}) {
  return {
    providers: [
      { id: 'sim', protocol: 'openai', base_url: `${simUrl}/v1`, api_key: 'sim-upstream-secret' },
      { id: 'sim-backup', protocol: 'openai', base_url: `${simUrl}/v1`, api_key: 'sim-upstream-secret' },
    ],
    models: [
      {
        id: 'gpt-sim',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'sim', upstream_model: 'sim-model' }],
        pricing: {
          input_per_mtok: 2_000_000,
          output_per_mtok: 8_000_000,
          cached_input_per_mtok: 500_000,
          per_request: 0,
        },
        quality: 80,
        auto: true,
        max_output_tokens: 1000,
      },
      {
        id: 'gpt-sim-fallback',
        endpoints: ['chat/completions'],
        routes: [
          { provider: 'sim', upstream_model: 'sim-broken' },
          { provider: 'sim-backup', upstream_model: 'sim-model' },
        ],
        pricing: { input_per_mtok: 1_000_000, output_per_mtok: 1_000_000 },
        max_output_tokens: 1000,
      },
      { id: 'free-sim', endpoints: ['chat/completions'], routes: [{ provider: 'sim' }], free: true },
      {
        id: 'restricted-sim',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'sim' }],
        pricing: { input_per_mtok: 1, output_per_mtok: 1 },
      },
    ],
    groups: [
      { id: 'default', models: ['*'] },
      // Self-service: the console tests choose it for their keys.
      { id: 'basic', models: ['gpt-sim', 'free-sim'], self_service: true },
    ],
    ...overrides,
  };
}
