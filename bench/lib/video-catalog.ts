/**
 * The catalog part of the task benchmarks: the simulator's content-tasks protocol as one provider and
 * one video model on it (720p and 1080p, 5 or 10 s), priced per second.
 */
export function benchVideoCatalog(simUrl: string) {
  return {
    providers: [
      {
        id: 'sim-tasks',
        protocol: 'content-tasks',
        base_url: `${simUrl}/api/v3`,
        api_key: 'bench-upstream-secret',
      },
    ],
    models: [
      {
        id: 'bench-video',
        endpoints: ['videos'],
        routes: [{ provider: 'sim-tasks', upstream_model: 'bench-video-up' }],
        durations: [5, 10],
        resolutions: ['720p', '1080p'],
        pricing: { per_second: { '720p': 10_000, '1080p': 30_000 } },
      },
    ],
  };
}
