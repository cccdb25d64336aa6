/** The demo catalog: chat, video and image-task models served by the in-process simulator. */
export function demoCatalog(simUrl: string) {
  return {
    providers: [
      { id: 'simulator', protocol: 'openai', base_url: `${simUrl}/v1`, api_key: 'demo-upstream-key' },
      { id: 'simulator-tasks', protocol: 'content-tasks', base_url: `${simUrl}/api/v3`, api_key: 'demo-upstream-key' },
    ],
    models: [
      {
        id: 'demo-large',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'simulator' }],
        pricing: { input_per_mtok: 2_500_000, output_per_mtok: 10_000_000, cached_input_per_mtok: 1_250_000 },
        quality: 90,
        auto: true,
        max_output_tokens: 4096,
      },
      {
        id: 'demo-small',
        endpoints: ['chat/completions'],
        routes: [{ provider: 'simulator' }],
        pricing: { input_per_mtok: 150_000, output_per_mtok: 600_000 },
        quality: 60,
        auto: true,
        max_output_tokens: 4096,
      },
      { id: 'demo-free', endpoints: ['chat/completions'], routes: [{ provider: 'simulator' }], free: true },
      {
        id: 'demo-video',
        endpoints: ['videos'],
        routes: [{ provider: 'simulator-tasks', upstream_model: 'video-sim' }],
        pricing: {
          per_second: { '720p': 50_000, '1080p': 100_000 },
          per_second_with_audio: { '720p': 70_000, '1080p': 140_000 },
        },
        durations: [5, 10],
        resolutions: ['720p', '1080p'],
      },
      {
        id: 'demo-image',
        endpoints: ['images/tasks'],
        // The simulator makes images for upstream models whose names start with "img".
        routes: [{ provider: 'simulator-tasks', upstream_model: 'img-sim' }],
        pricing: { per_image: { '1024x1024': 40_000, '1792x1024': 80_000 } },
      },
    ],
    groups: [{ id: 'default', models: ['*'] }],
  };
}
