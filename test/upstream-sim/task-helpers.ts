// Raw-HTTP helpers for the task protocols: the adapters are written against exactly these bytes.

export const TASKS_BASE = '/api/v3/contents/generations/tasks';

/** A clock the test moves by hand, so task timelines are exact instead of slept through. */
export class ManualClock {
  constructor(public ms = Date.UTC(2025, 0, 1)) {}
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

export function contentBody(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'vid-sim', content: [{ type: 'text', text }], ...extra };
}

export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  init: RequestInit = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    ...init,
  });
}

export async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** Creates a content task and returns its id (expects 200). */
export async function createContentTask(
  simUrl: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<string> {
  const res = await postJson(`${simUrl}${TASKS_BASE}`, body, headers);
  if (res.status !== 200) throw new Error(`create answered ${res.status}: ${await res.text()}`);
  return (await json<{ id: string }>(res)).id;
}

export interface ContentTask {
  id: string;
  model: string;
  status: string;
  progress?: number;
  created_at: number;
  updated_at: number;
  content?: { video_url?: string; image_urls?: string[] };
  usage?: Record<string, number>;
  error?: { code: string; message: string };
  [field: string]: unknown;
}

export async function getContentTask(
  simUrl: string,
  id: string,
  headers: Record<string, string> = {},
): Promise<ContentTask> {
  const res = await fetch(`${simUrl}${TASKS_BASE}/${id}`, { headers });
  if (res.status !== 200) throw new Error(`get answered ${res.status}: ${await res.text()}`);
  return json<ContentTask>(res);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
