import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../shared/catalog/index.js';
import { listPrice, rankAuto } from '../../shared/routing/auto.js';
import { parseModelSpec } from '../../shared/routing/model-spec.js';
import {
  chooseVersion,
  parseTemplateVars,
  renderTemplate,
  templateVariables,
  type TemplateVersion,
} from '../../shared/routing/templates.js';
import { pickByHash, weightedOrder } from '../../shared/routing/weighted.js';

const catalog = buildCatalog({
  providers: [{ id: 'p', protocol: 'openai', base_url: 'http://127.0.0.1:9/v1' }],
  models: [
    {
      id: 'big',
      endpoints: ['chat/completions'],
      routes: [{ provider: 'p' }],
      quality: 90,
      auto: true,
      pricing: { input_per_mtok: 5_000_000, output_per_mtok: 15_000_000 },
    },
    {
      id: 'mid',
      endpoints: ['chat/completions'],
      routes: [{ provider: 'p' }],
      quality: 70,
      auto: true,
      pricing: { input_per_mtok: 1_000_000, output_per_mtok: 2_000_000 },
    },
    {
      id: 'also-mid',
      endpoints: ['chat/completions'],
      routes: [{ provider: 'p' }],
      quality: 70,
      auto: true,
      pricing: { input_per_mtok: 1_000_000, output_per_mtok: 2_000_000 },
    },
    { id: 'free', endpoints: ['chat/completions'], routes: [{ provider: 'p' }], quality: 10, auto: true, free: true },
  ],
});
const models = [...catalog.models.values()];

describe('model spec', () => {
  it('reads plain ids, auto variants and presets, and refuses malformed ones naming the field', () => {
    expect(parseModelSpec('gpt-x')).toEqual({ kind: 'model', id: 'gpt-x' });
    expect(parseModelSpec('auto')).toEqual({ kind: 'auto', strategy: 'quality' });
    expect(parseModelSpec('auto:cost')).toEqual({ kind: 'auto', strategy: 'cost' });
    expect(parseModelSpec('@preset/support-bot')).toEqual({ kind: 'preset', slug: 'support-bot' });
    for (const bad of ['auto:fast', 'auto:', '@preset/', '@preset/Upper', '@preset/-lead']) {
      expect(() => parseModelSpec(bad), bad).toThrow(
        expect.objectContaining({ status: 400, code: 'invalid_request', param: 'model' }),
      );
    }
  });
});

describe('auto ranking', () => {
  it('quality: highest first, ties by id', () => {
    expect(rankAuto(models, 'quality').map((m) => m.id)).toEqual(['big', 'also-mid', 'mid', 'free']);
  });
  it('cost: lowest list price (input + output per Mtok + per request), free first', () => {
    expect(listPrice(catalog.models.get('mid')!)).toBe(3_000_000);
    expect(rankAuto(models, 'cost').map((m) => m.id)).toEqual(['free', 'also-mid', 'mid', 'big']);
  });
  it('latency: lowest measured time to first token, unmeasured models last by id', () => {
    const ttft = new Map([
      ['big', 120],
      ['mid', 300],
    ]);
    expect(rankAuto(models, 'latency', ttft).map((m) => m.id)).toEqual(['big', 'mid', 'also-mid', 'free']);
  });
});

describe('weights', () => {
  it('puts each item first in proportion to its weight (±3% over 10,000 picks)', () => {
    const items = [
      { id: 'a', weight: 1 },
      { id: 'b', weight: 3 },
      { id: 'c', weight: 6 },
      { id: 'z', weight: 0 },
    ];
    const firsts = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) {
      const order = weightedOrder(items);
      expect(order).toHaveLength(4);
      firsts.set(order[0]!.id, (firsts.get(order[0]!.id) ?? 0) + 1);
    }
    expect(Math.abs((firsts.get('a') ?? 0) / 10_000 - 0.1)).toBeLessThan(0.03);
    expect(Math.abs((firsts.get('b') ?? 0) / 10_000 - 0.3)).toBeLessThan(0.03);
    expect(Math.abs((firsts.get('c') ?? 0) / 10_000 - 0.6)).toBeLessThan(0.03);
    expect(firsts.get('z') ?? 0).toBe(0);
  });
  it('picks by hash deterministically', () => {
    const items = [{ weight: 1 }, { weight: 1 }];
    expect(pickByHash(items, 0)).toBe(items[0]);
    expect(pickByHash(items, 0xffff_ffff)).toBe(items[1]);
  });
});

describe('prompt templates', () => {
  const versions: TemplateVersion[] = [
    { id: 'v1', templateId: 't', text: 'A for {{key_name}}', weight: 70 },
    { id: 'v2', templateId: 't', text: 'B', weight: 30 },
  ];

  it('fills variables and refuses one without a value, naming the header', () => {
    expect(templateVariables('Hi {{ name }}, {{date}} {{name}}')).toEqual(['name', 'date']);
    expect(renderTemplate('Hi {{ name }} on {{date}}', { name: 'Ada', date: '2026-11-24' })).toBe(
      'Hi Ada on 2026-11-24',
    );
    expect(() => renderTemplate('{{missing}}', {})).toThrow(
      expect.objectContaining({ status: 400, param: 'X-Service-Template-Vars' }),
    );
  });

  it('splits calls by weight (±3%) and keeps a session on one version', () => {
    let first = 0;
    for (let i = 0; i < 10_000; i++) if (chooseVersion(versions, undefined)!.id === 'v1') first++;
    expect(Math.abs(first / 10_000 - 0.7)).toBeLessThan(0.03);
    let sessionsOnFirst = 0;
    for (let s = 0; s < 10_000; s++) {
      const picked = chooseVersion(versions, `session-${s}`)!.id;
      expect(chooseVersion(versions, `session-${s}`)!.id).toBe(picked);
      if (picked === 'v1') sessionsOnFirst++;
    }
    expect(Math.abs(sessionsOnFirst / 10_000 - 0.7)).toBeLessThan(0.03);
  });

  it('reads X-Service-Template-Vars as a JSON object of scalars', () => {
    expect(parseTemplateVars('{"team":"ops","n":3,"on":true}')).toEqual({ team: 'ops', n: '3', on: 'true' });
    for (const bad of ['[1]', 'not json', '{"a":{"b":1}}', 'null'])
      expect(() => parseTemplateVars(bad), bad).toThrow(expect.objectContaining({ status: 400 }));
  });
});
