import type { Config } from '../../config.js';
import { redact } from './probe.js';
import type { LocalServices } from './provide.js';

export interface BannerInput {
  url: string;
  config: Config;
  local: LocalServices;
  demo?: { key: string; email: string; password: string };
}

const sentinelsOf = ({ redis }: Config) =>
  `master '${redis.sentinelName}' through Sentinels ${redis.sentinels!.map((s) => `${s.host}:${s.port}`).join(', ')}`;

/** The block printed once the gateway is ready: where it listens, what to try, what it runs on. */
export function startBanner({ url, config, local, demo }: BannerInput): string {
  const where = (source: string, value: string) =>
    source === 'embedded' ? `embedded, ${redact(value)} (data under ${config.dataDir})` : redact(value);
  const lines = [
    '',
    `Gateway ready: ${url}`,
    `  API reference   ${url}/docs   (OpenAPI: ${url}/openapi.json)`,
    `  Key usage page  ${url}/usage-lookup`,
    ...(config.operatorToken
      ? [`  Queue dashboard ${url}/admin/queues   (Authorization: Bearer <OPERATOR_TOKEN>)`]
      : []),
    `  Postgres        ${where(local.postgres, config.db.url)}`,
    `  Redis           ${config.redis.sentinels ? sentinelsOf(config) : where(local.redis, config.redis.url)}`,
  ];
  if (demo) {
    lines.push(
      '',
      'Demo mode (no CATALOG_FILE): chat models demo-large, demo-small, demo-free; video model demo-video; image-task model demo-image — all on a built-in simulator.',
      `Console sign-in: ${demo.email} / ${demo.password}`,
      ...(config.http.host === '127.0.0.1'
        ? ['Listening on this machine only (127.0.0.1): set HOST=0.0.0.0 to open the demo to the network.']
        : []),
      `Demo API key:    ${demo.key}`,
      '',
      `curl ${url}/v1/chat/completions \\`,
      `  -H "Authorization: Bearer ${demo.key}" -H "Content-Type: application/json" \\`,
      `  -d '{"model":"demo-large","messages":[{"role":"user","content":"Hello!"}]}'`,
    );
  }
  return `${lines.join('\n')}\n\n`;
}
