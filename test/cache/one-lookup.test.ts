import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BalanceStore } from '../../shared/billing/balance.js';
import { QuotaStore } from '../../shared/billing/quota.js';
import { insertPreset } from '../../shared/db/presets.js';
import { writeTemplateParts } from '../../shared/db/prompt-templates.js';
import type { ApiKeyContext } from '../../shared/keys/api-key.js';
import { KeyCache } from '../../shared/keys/key-cache.js';
import { Admissions } from '../../shared/limits/admission.js';
import { AccountHealth } from '../../shared/routing/account-health.js';
import { LatencyTracker } from '../../shared/routing/latency.js';
import { RoutingCache } from '../../shared/routing/routing-cache.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { sleep, waitUntil } from '../support/http.js';

// Every per-call cache sends ONE lookup to its store however many calls ask at once, and serves the
// old value while it refreshes it: counted on the real Postgres and Redis, through counting wrappers.

/** Counts the queries a Db runs (a plugin on the real Db: same pool, same SQL). */
class QueryCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.count++;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

const CALLS = 200;
const crowd = <T>(call: () => Promise<T>) => Promise.all(Array.from({ length: CALLS }, call));

let gw: TestGateway;
let redis: Redis;
beforeAll(async () => {
  gw = await startTestGateway();
  redis = new Redis(gw.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
});
afterAll(async () => {
  redis.disconnect();
  await gw.close();
});

async function templateBoundTo(keyId: string, userId: string): Promise<void> {
  await gw.services.db.transaction().execute(async (trx) => {
    const { id } = await trx
      .insertInto('prompt_templates')
      .values({ user_id: userId, name: `t-${keyId}` })
      .returning('id')
      .executeTakeFirstOrThrow();
    await writeTemplateParts(trx, id, [{ label: 'a', text: 'Be kind.', weight: 1 }], [keyId]);
  });
}

describe('200 concurrent calls make one lookup', () => {
  it('RoutingCache: template versions and presets, and one refresh that the crowd does not wait for', async () => {
    const acct = await gw.account();
    await templateBoundTo(acct.keyId, acct.userId);
    await insertPreset(gw.services.db, acct.userId, 'house', {
      models: ['gpt-sim'],
      strategy: 'ordered',
      weights: null,
      preferred_providers: null,
    });
    const counter = new QueryCounter();
    const cache = new RoutingCache(gw.services.db.withPlugin(counter), 300);

    const versions = await crowd(() => cache.templateVersions(acct.keyId));
    expect(counter.count).toBe(1);
    expect(new Set(versions.map((v) => v[0]?.text))).toEqual(new Set(['Be kind.']));
    const presets = await crowd(() => cache.preset(acct.userId, 'house'));
    expect(counter.count).toBe(2);
    expect(presets.every((p) => p?.slug === 'house')).toBe(true);

    // Past fresh, within the stale window: the crowd is answered from memory, one refresh runs.
    await sleep(350);
    const before = counter.count;
    const stale = await crowd(() => cache.templateVersions(acct.keyId));
    expect(stale.every((v) => v[0]?.text === 'Be kind.')).toBe(true);
    await waitUntil(() => counter.count === before + 1, 2_000);
    await crowd(() => cache.templateVersions(acct.keyId));
    expect(counter.count).toBe(before + 1);
  });

  it('KeyCache: by secret and by id', async () => {
    const acct = await gw.account();
    const counter = new QueryCounter();
    const keys = new KeyCache(gw.services.db.withPlugin(counter), 60_000);
    const bySecret = await crowd(() => keys.lookup(acct.key));
    expect(counter.count).toBe(1);
    expect(bySecret.every((k) => k?.id === acct.keyId)).toBe(true);
    const byId = await crowd(() => keys.lookupById(acct.keyId));
    expect(counter.count).toBe(2);
    expect(byId.every((k) => k?.userId === acct.userId)).toBe(true);
  });

  it('AccountHealth: the states of a call’s routes, in one MGET', async () => {
    let mgets = 0;
    const mget = redis.mget.bind(redis) as (...keys: string[]) => Promise<(string | null)[]>;
    const counted = Object.assign(Object.create(redis) as Redis, {
      mget: (...keys: string[]) => {
        mgets++;
        return mget(...keys);
      },
    });
    const health = new AccountHealth(counted, gw.env.REDIS_PREFIX!, Date.now, {
      threshold: 3,
      windowMs: 30_000,
      cooldownMs: 1_000,
      maxCooldownMs: 8_000,
      cacheMs: 500,
    });
    const states = await crowd(() => health.states(['sim/a:m', 'sim/b:m']));
    expect(mgets).toBe(1);
    expect(states.every((s) => s.get('sim/a:m') === 'closed' && s.get('sim/b:m') === 'closed')).toBe(true);
  });

  it('LatencyTracker: the averages of a model list, in one pipeline', async () => {
    let reads = 0;
    const pipeline = redis.pipeline.bind(redis);
    const counted = Object.assign(Object.create(redis) as Redis, {
      pipeline: () => {
        reads++;
        return pipeline();
      },
    });
    const latency = new LatencyTracker(counted, gw.env.REDIS_PREFIX!, Date.now, 5_000, 60_000);
    await crowd(() => latency.averages(['gpt-sim', 'gpt-sim-fallback']));
    expect(reads).toBe(1);
    latency.close();
  });

  it('Admissions: an account whose balance is not in Redis yet is loaded from Postgres once', async () => {
    const acct = await gw.account({ balance: 10_000_000 });
    const { services } = gw;
    const counter = new QueryCounter();
    const db = services.db.withPlugin(counter);
    const admissions = new Admissions(
      services.redis,
      services.redisKeys,
      new BalanceStore(services.redis, db, services.redisKeys),
      new QuotaStore(services.redis, db, services.redisKeys),
      { reservationTtlMs: 30_000, leaseTtlMs: 30_000, grants: false },
    );
    const key = (await services.keyCache.lookup(acct.key)) as ApiKeyContext;
    const group = services.catalog.groups.get(key.groupId)!;
    let n = 0;
    const admitted = await crowd(async () => {
      const callId = `crowd-${++n}`;
      const now = Date.now();
      return { callId, admitted: await admissions.admit({ key, group, callId, maxCost: 10, estimatedTokens: 1, now }) };
    });
    expect(counter.count).toBe(1);
    const owner = { userId: key.userId, keyId: key.id };
    await Promise.all(
      admitted.map(({ callId, admitted }) =>
        admissions.finish({ owner, callId, now: Date.now(), cost: 0, admitted, actualTokens: 1, record: undefined }),
      ),
    );
    admissions.renewer.stop();
  });
});
