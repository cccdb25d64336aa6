/** The demo catalog: three models served by the in-process simulator, priced like real ones. */
export function demoCatalog(simUrl: string) {
  return {
    providers: [{ id: 'simulator', protocol: 'openai', base_url: `${simUrl}/v1`, api_key: 'demo-upstream-key' }],
    models: [
      {
        id: 'demo-large',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'simulator', upstream_model: 'sim-large' }],
        pricing: { input_per_mtok: 2_500_000, output_per_mtok: 10_000_000, cached_input_per_mtok: 1_250_000 },
        quality: 90,
        auto: true,
        max_output_tokens: 4096,
      },
      {
        id: 'demo-small',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'simulator', upstream_model: 'sim-small' }],
        pricing: { input_per_mtok: 150_000, output_per_mtok: 600_000 },
        quality: 60,
        auto: true,
        max_output_tokens: 4096,
      },
      { id: 'demo-free', endpoints: ['chat/completions'], routes: [{ provider: 'simulator', upstream_model: 'sim-free' }], free: true },
    ],
    groups: [{ id: 'default', models: ['*'] }],
  };
}
