import { createHash } from 'node:crypto';

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem 2rem;color:#1d1d1f}
h1{font-size:1.6rem}h2{margin-top:2rem;border-bottom:1px solid #ddd}code,pre{font:13px ui-monospace,monospace}
.op{border:1px solid #ddd;border-radius:6px;margin:.5rem 0;padding:.4rem .8rem}.m{display:inline-block;min-width:4.5rem;font-weight:700;text-transform:uppercase}
.get{color:#0a7}.post{color:#06c}.patch,.put{color:#a60}.delete{color:#c22}.head{color:#666}pre{background:#f6f6f6;padding:.5rem;overflow:auto;max-height:24rem}
details summary{cursor:pointer}.auth{color:#666;font-size:.85rem}`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** No scripts at all, and only this page's own inline style: nothing external can load. */
export const DOCS_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

interface Operation {
  tags: string[];
  summary: string;
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ name: string; in: string; required: boolean }>;
  requestBody?: { content: { 'application/json': { schema: unknown } } };
}

/** The reference page: the OpenAPI document rendered on the server, grouped by tag. */
export function renderDocsPage(document: {
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
}): string {
  const byTag = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const auth = op.security?.length ? Object.keys(op.security[0] ?? {}).join(', ') : 'none';
      const params = (op.parameters ?? [])
        .map((p) => `<code>${escapeHtml(p.name)}</code> (${p.in}${p.required ? ', required' : ''})`)
        .join(', ');
      const body = op.requestBody
        ? `<details><summary>request body schema</summary><pre>${escapeHtml(JSON.stringify(op.requestBody.content['application/json'].schema, null, 2))}</pre></details>`
        : '';
      const html = `<div class="op"><span class="m ${method}">${method}</span> <code>${escapeHtml(path)}</code> — ${escapeHtml(op.summary)}<div class="auth">credential: ${auth}${params ? ` · parameters: ${params}` : ''}</div>${body}</div>`;
      const tag = op.tags[0] ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  const sections = [...byTag].map(([tag, ops]) => `<h2>${escapeHtml(tag)}</h2>${ops.join('')}`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(document.info.title)} API reference</title><style>${STYLE}</style></head><body><h1>${escapeHtml(document.info.title)} API reference <small>${escapeHtml(document.info.version)}</small></h1><p>The machine-readable document is at <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>${sections}</body></html>`;
}
