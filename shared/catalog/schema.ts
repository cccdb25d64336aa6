import { z } from 'zod';

/** The gateway endpoints a model can serve; the same names are used by estimates and usage records. */
export const ENDPOINTS = [
  'chat/completions',
  'embeddings',
  'images/generations',
  'images/edits',
  'videos',
  'images/tasks',
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export const PROTOCOLS = ['openai', 'anthropic', 'gemini', 'content-tasks', 'openai-videos'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** Which gateway endpoints each upstream protocol can serve. */
const SERVES: Record<Protocol, readonly Endpoint[]> = {
  openai: ['chat/completions', 'embeddings', 'images/generations', 'images/edits'],
  anthropic: ['chat/completions'],
  gemini: ['chat/completions', 'embeddings'],
  'content-tasks': ['videos', 'images/tasks'],
  'openai-videos': ['videos'],
};

const microUsd = z.number().int().nonnegative();
const id = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/, 'letters, digits and . _ : / - (1-128 characters)');

const provider = z.strictObject({
  id,
  protocol: z.enum(PROTOCOLS),
  base_url: z.url({ protocol: /^https?$/ }),
  /** A literal key, or `env:NAME` to read it from the environment at load time. */
  api_key: z.string().default(''),
  /**
   * Several upstream accounts of this provider (each key `env:NAME` or literal), spread by weight
   * and rested when they keep failing; without it the provider is one account, `api_key`.
   */
  accounts: z
    .array(
      z.strictObject({
        id,
        api_key: z.string().default(''),
        weight: z.number().int().min(0).max(1_000_000).default(1),
      }),
    )
    .min(1)
    .optional(),
  /**
   * `openai` providers: the field the upstream reads its output cap from, where the gateway writes
   * the cap a call was reserved for. Unset: the field(s) the client used, `max_completion_tokens`
   * when it used none (OpenAI refuses both at once). `max_tokens` for older OpenAI-compatible
   * servers that ignore `max_completion_tokens`.
   */
  max_tokens_field: z.enum(['max_completion_tokens', 'max_tokens']).optional(),
});

/** A price, or prices by variant (image size such as `1024x1024`, video resolution such as `720p`). */
const variantPrice = z.union([microUsd, z.record(z.string().min(1), microUsd)]);
export type VariantPrice = z.infer<typeof variantPrice>;

const percent = z.number().min(0).max(100).multipleOf(0.01);

const pricing = z.strictObject({
  input_per_mtok: microUsd.default(0),
  output_per_mtok: microUsd.default(0),
  cached_input_per_mtok: microUsd.optional(),
  per_request: microUsd.default(0),
  per_image: variantPrice.optional(),
  per_second: variantPrice.optional(),
  per_second_with_audio: variantPrice.optional(),
  /** What a response-cache hit costs, in percent of the original call's price (0 = free; docs/reference/cache.md). */
  cache_hit_percent: percent.default(0),
  /** Percent off each line of a batch (docs/reference/batches.md), after the account's and the group's discounts. */
  batch_discount_percent: percent.default(0),
});
const limit = z.number().int().nonnegative().nullable().default(null);

const model = z.strictObject({
  id,
  endpoints: z.array(z.enum(ENDPOINTS)).min(1),
  routes: z.array(z.strictObject({ provider: id, upstream_model: z.string().min(1).optional() })).min(1),
  pricing: pricing.default({
    input_per_mtok: 0,
    output_per_mtok: 0,
    per_request: 0,
    cache_hit_percent: 0,
    batch_discount_percent: 0,
  }),
  /** Explicitly free: estimates say is_free, charges are zero. */
  free: z.boolean().default(false),
  /** 0-100, higher is better; used by `auto` / `auto:quality`. */
  quality: z.number().min(0).max(100).optional(),
  /** Whether automatic routing may pick this model. */
  auto: z.boolean().default(false),
  /** false: the provider cannot fetch image URLs itself; the gateway fetches them safely and sends its own links. */
  accepts_urls: z.boolean().default(true),
  /** How prompts are counted for reservations (shared/billing/prompt-tokens.ts). */
  tokenizer: z.enum(['o200k', 'cl100k', 'other']).default('o200k'),
  /** Output cap used to reserve money when a request sets no max_tokens. */
  max_output_tokens: z.number().int().positive().default(4096),
  owned_by: z.string().default('gateway'),
  /** Video models: the durations (seconds) and resolutions they offer. */
  durations: z.array(z.number().positive()).optional(),
  resolutions: z.array(z.string().min(1)).optional(),
  /** Video models: the reference images one task may carry (https URLs, data URIs, assets). */
  reference_limits: z
    .strictObject({
      max_count: z.number().int().min(0).default(4),
      /** Bytes of one image given inline (a data URI), or fetched by the gateway (accepts_urls: false); a URL passed through is the provider's to check. */
      max_bytes: z
        .number()
        .int()
        .positive()
        .default(10 * 1024 * 1024),
      types: z
        .array(z.enum(['image/jpeg', 'image/png', 'image/webp', 'image/gif']))
        .min(1)
        .default(['image/jpeg', 'image/png', 'image/webp']),
    })
    .default({ max_count: 4, max_bytes: 10 * 1024 * 1024, types: ['image/jpeg', 'image/png', 'image/webp'] }),
});

/** Group limits are shared by every key of the group together; the discount applies to each call. */
const group = z.strictObject({
  id,
  models: z.array(z.string().min(1)).min(1),
  rpm_limit: limit,
  tpm_limit: limit,
  concurrency_limit: limit,
  discount_percent: percent.default(0),
  /** true: any user may put a key in this group from the console; otherwise only the operator assigns it. */
  self_service: z.boolean().default(false),
});

export const catalogSchema = z
  .strictObject({
    providers: z.array(provider).min(1),
    models: z.array(model).min(1),
    groups: z.array(group).optional(),
  })
  .superRefine((c, ctx) => {
    const providerIds = new Set<string>();
    c.providers.forEach((p, i) => {
      if (providerIds.has(p.id))
        ctx.addIssue({ code: 'custom', path: ['providers', i, 'id'], message: `duplicate provider id ${p.id}` });
      providerIds.add(p.id);
    });
    const modelIds = new Set<string>();
    c.models.forEach((m, i) => {
      if (modelIds.has(m.id))
        ctx.addIssue({ code: 'custom', path: ['models', i, 'id'], message: `duplicate model id ${m.id}` });
      modelIds.add(m.id);
      m.routes.forEach((r, j) => {
        const protocol = c.providers.find((p) => p.id === r.provider)?.protocol;
        if (!protocol) {
          ctx.addIssue({
            code: 'custom',
            path: ['models', i, 'routes', j, 'provider'],
            message: `unknown provider ${r.provider}`,
          });
          return;
        }
        for (const endpoint of m.endpoints) {
          if (!SERVES[protocol].includes(endpoint)) {
            ctx.addIssue({
              code: 'custom',
              path: ['models', i, 'routes', j, 'provider'],
              message: `a ${protocol} provider cannot serve ${endpoint}`,
            });
          }
        }
      });
    });
    (c.groups ?? []).forEach((g, i) => {
      g.models.forEach((m, j) => {
        if (m !== '*' && !modelIds.has(m))
          ctx.addIssue({ code: 'custom', path: ['groups', i, 'models', j], message: `unknown model ${m}` });
      });
    });
  });

export type CatalogFile = z.infer<typeof catalogSchema>;
export type CatalogProvider = CatalogFile['providers'][number];
export type CatalogModel = CatalogFile['models'][number];
export type Pricing = CatalogModel['pricing'];
export type CatalogGroup = NonNullable<CatalogFile['groups']>[number];
