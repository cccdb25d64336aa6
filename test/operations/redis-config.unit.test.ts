import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config.js';

describe('REDIS_SENTINELS', () => {
  it('reads host:port pairs, with the master name defaulting to mymaster', () => {
    const { redis } = parseConfig({ REDIS_SENTINELS: ' 10.0.0.1:26379, sentinel-b:26380 ' });
    expect(redis.sentinels).toEqual([
      { host: '10.0.0.1', port: 26379 },
      { host: 'sentinel-b', port: 26380 },
    ]);
    expect(redis.sentinelName).toBe('mymaster');
    expect(parseConfig({}).redis.sentinels).toBeUndefined();
  });

  it.each(['sentinel-a', '10.0.0.1:26379,', 'a:1 b:2', ':26379'])('refuses %j, naming the variable', (value) => {
    expect(() => parseConfig({ REDIS_SENTINELS: value })).toThrow(
      /REDIS_SENTINELS: a comma-separated list of host:port/,
    );
  });

  it('refuses an empty master name', () => {
    expect(() => parseConfig({ REDIS_SENTINEL_NAME: '' })).toThrow(/REDIS_SENTINEL_NAME/);
  });
});
