/**
 * One chat model per upstream protocol, all on the simulator: `gpt-sim` (chat completions),
 * `claude-sim` (Messages) and `gemini-sim` (generateContent); the same prices for all three, so a
 * test can compute any call's charge the same way.
 */
export const PRICING = { input_per_mtok: 2_000_000, output_per_mtok: 8_000_000, cached_input_per_mtok: 500_000 };

export function surfacesCatalog(simUrl: string) {
  return {
    providers: [
      { id: 'sim-openai', protocol: 'openai', base_url: `${simUrl}/v1`, api_key: 'sim-upstream-secret' },
      { id: 'sim-anthropic', protocol: 'anthropic', base_url: simUrl, api_key: 'sim-upstream-secret' },
      { id: 'sim-gemini', protocol: 'gemini', base_url: simUrl, api_key: 'sim-upstream-secret' },
    ],
    models: [
      {
        id: 'gpt-sim',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'sim-openai', upstream_model: 'up-gpt' }],
        pricing: PRICING,
        max_output_tokens: 1000,
      },
      {
        id: 'claude-sim',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'sim-anthropic', upstream_model: 'up-claude' }],
        pricing: PRICING,
        max_output_tokens: 1000,
        tokenizer: 'other',
      },
      {
        id: 'gemini-sim',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'sim-gemini', upstream_model: 'up-gemini' }],
        pricing: PRICING,
        max_output_tokens: 1000,
        tokenizer: 'other',
      },
    ],
  };
}

export const MODEL_OF = { openai: 'gpt-sim', anthropic: 'claude-sim', gemini: 'gemini-sim' } as const;
export const UPSTREAM_OF = { openai: 'up-gpt', anthropic: 'up-claude', gemini: 'up-gemini' } as const;
