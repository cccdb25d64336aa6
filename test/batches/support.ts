// The batch tests' gateway: the task gateway (real S3, the workers in process, the batch queue
// among them) with a chat model priced with a batch discount, and helpers to upload JSONL and wait
// for a batch to end.
import OpenAI, { toFile } from 'openai';
import type { Json } from '../support/limits.js';
import type { TestGateway } from '../support/gateway.js';
import { waitUntil } from '../support/http.js';
import { startTaskGateway, taskCatalog, type TaskGateway, type TaskGatewayOptions } from '../support/task-gateway.js';

/** gpt-sim's prices (test/support/catalog.ts) and the batch discount the tests give it. */
export const PRICE = { input_per_mtok: 2_000_000, output_per_mtok: 8_000_000 };
export const BATCH_DISCOUNT = 50;

/** The embeddings model's input price, micro-USD per million tokens. */
export const EMBED_PRICE = 100_000;

/**
 * What a batch line costs, computed independently of the gateway's pricing: tokens × price per
 * million less the batch discount, rounded up once (gpt-sim's prices unless others are given).
 */
export function batchLineMicroUsd(
  inputTokens: number,
  outputTokens: number,
  price: { input_per_mtok: number; output_per_mtok: number } = PRICE,
): number {
  const scaled = BigInt(inputTokens * price.input_per_mtok + outputTokens * price.output_per_mtok);
  const denominator = 1_000_000n * 100n;
  return Number((scaled * BigInt(100 - BATCH_DISCOUNT) + denominator - 1n) / denominator);
}

export function batchCatalog(simUrl: string) {
  const base = taskCatalog(simUrl) as { models: { id: string; pricing?: Record<string, unknown> }[] };
  return {
    ...base,
    models: [
      ...base.models.map((m) =>
        m.id === 'gpt-sim' ? { ...m, pricing: { ...m.pricing, batch_discount_percent: BATCH_DISCOUNT } } : m,
      ),
      {
        id: 'embed-sim',
        endpoints: ['embeddings'],
        routes: [{ provider: 'sim', upstream_model: 'up-embed' }],
        pricing: { input_per_mtok: EMBED_PRICE, batch_discount_percent: BATCH_DISCOUNT },
      },
    ],
  };
}

export function startBatchGateway(options: TaskGatewayOptions = {}): Promise<TaskGateway> {
  return startTaskGateway({
    catalog: batchCatalog,
    ...options,
    env: { BATCH_CONCURRENCY: '4', ...options.env },
  });
}

export function openAi(gw: TestGateway, key: string): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
}

export interface ChatLine {
  custom_id: string;
  method?: string;
  url?: string;
  body: Record<string, unknown>;
}

/** A chat line: POST /v1/chat/completions with one user message. */
export function chatLine(customId: string, text: string, extra: Record<string, unknown> = {}): ChatLine {
  return {
    custom_id: customId,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'gpt-sim', messages: [{ role: 'user', content: text }], ...extra },
  };
}

export const jsonl = (lines: readonly unknown[]) =>
  `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`;

export async function uploadLines(client: OpenAI, lines: readonly unknown[], name = 'input.jsonl') {
  return client.files.create({ file: await toFile(Buffer.from(jsonl(lines)), name), purpose: 'batch' });
}

/** Uploads the lines, makes a batch of them for `endpoint` and waits for its end: the batch as it ended. */
export async function runBatch(client: OpenAI, lines: readonly unknown[], endpoint = '/v1/chat/completions') {
  const file = await uploadLines(client, lines);
  const created = await client.batches.create({
    input_file_id: file.id,
    endpoint: endpoint as OpenAI.Batches.BatchCreateParams['endpoint'],
    completion_window: '24h',
  });
  return waitBatchEnd(client, created.id);
}

/**
 * A chat batch of `lines` slow lines (400 ms each), once its first line has completed: with one
 * line at a time (BATCH_CONCURRENCY=1) it is mid-run for seconds, to cancel or expire.
 */
export async function slowBatchUnderway(client: OpenAI, lines: number) {
  const file = await uploadLines(
    client,
    Array.from({ length: lines }, (_, i) => chatLine(`line-${i}`, `slow [[sim:latencyMs=400]] ${i}`)),
  );
  const created = await client.batches.create({
    input_file_id: file.id,
    endpoint: '/v1/chat/completions',
    completion_window: '24h',
  });
  await waitUntil(async () => (await client.batches.retrieve(created.id)).request_counts!.completed >= 1, 30_000, 50);
  return created;
}

const ENDED = ['completed', 'failed', 'expired', 'cancelled'];

/** Polls the batch until it ends (generous: two busy cores). */
export async function waitBatchEnd(client: OpenAI, id: string, timeoutMs = 60_000) {
  let batch = await client.batches.retrieve(id);
  await waitUntil(async () => ENDED.includes((batch = await client.batches.retrieve(id)).status), timeoutMs, 100);
  return batch;
}

/** A result file's lines, parsed. */
export async function fileLines(client: OpenAI, fileId: string | null | undefined): Promise<Json[]> {
  if (!fileId) return [];
  const text = await (await client.files.content(fileId)).text();
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}
