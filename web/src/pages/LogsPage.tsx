import { useState } from 'preact/hooks';
import { unwrap } from '../api/client';
import type { Key, LogRecord, Page } from '../api/models';
import { Field } from '../components/Field';
import { Pager } from '../components/Pager';
import { Empty, LoadError, Loading } from '../components/States';
import { useLoad } from '../components/use-load';
import { useConsole } from '../context';
import { formatDateTime, formatMoney, formatNumber } from '../format';
import { TableFrame } from '../components/TableFrame';

type Filters = {
  model: string;
  status: string;
  tag: string;
  key_id: string;
  start: string;
  end: string;
  cache_hit: string;
};

const PAGE_SIZE = 50;

/** Logs: the request records, newest first, filtered, paged; a record's details. */
export function LogsPage() {
  const { api, locale } = useConsole();
  const [draft, setDraft] = useState<Filters>({
    model: '',
    status: '',
    tag: '',
    key_id: '',
    start: '',
    end: '',
    cache_hit: '',
  });
  const keys = useLoad(
    () => unwrap<Page<Key>>(api.GET('/api/v1/keys', { params: { query: { page: '1', page_size: '100' } } })),
    [],
  );
  const [filters, setFilters] = useState<Filters>(draft);
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<LogRecord | null>(null);
  const logs = useLoad(() => {
    const query = {
      page: String(page),
      page_size: String(PAGE_SIZE),
      ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== '')),
    };
    return unwrap<Page<LogRecord>>(api.GET('/api/v1/usage/logs', { params: { query } }));
  }, [filters, page]);

  return (
    <section aria-labelledby="logs-title">
      <h1 id="logs-title">Logs</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setFilters(draft);
        }}
      >
        <Field label="Model">
          {(p) => (
            <input {...p} value={draft.model} onInput={(e) => setDraft({ ...draft, model: e.currentTarget.value })} />
          )}
        </Field>
        <Field label="Status">
          {(p) => (
            <input
              {...p}
              inputMode="numeric"
              placeholder="e.g. 429"
              value={draft.status}
              onInput={(e) => setDraft({ ...draft, status: e.currentTarget.value })}
            />
          )}
        </Field>
        <Field label="Tag">
          {(p) => (
            <input {...p} value={draft.tag} onInput={(e) => setDraft({ ...draft, tag: e.currentTarget.value })} />
          )}
        </Field>
        <Field label="Key">
          {(p) => (
            <select {...p} value={draft.key_id} onChange={(e) => setDraft({ ...draft, key_id: e.currentTarget.value })}>
              <option value="">Any key</option>
              {keys.state === 'ready' &&
                keys.value.list.map((k) => (
                  <option key={k.id} value={k.id}>
                    {k.name || '(unnamed)'} ({k.prefix}…{k.last4})
                  </option>
                ))}
            </select>
          )}
        </Field>
        <Field label="Cache">
          {(p) => (
            <select
              {...p}
              value={draft.cache_hit}
              onChange={(e) => setDraft({ ...draft, cache_hit: e.currentTarget.value })}
            >
              <option value="">Any</option>
              <option value="true">Cache hits</option>
              <option value="false">Not from the cache</option>
            </select>
          )}
        </Field>
        <Field label="From" hint="UTC day">
          {(p) => (
            <input
              {...p}
              type="date"
              value={draft.start}
              onInput={(e) => setDraft({ ...draft, start: e.currentTarget.value })}
            />
          )}
        </Field>
        <Field label="To" hint="UTC day, included">
          {(p) => (
            <input
              {...p}
              type="date"
              value={draft.end}
              onInput={(e) => setDraft({ ...draft, end: e.currentTarget.value })}
            />
          )}
        </Field>
        <div class="actions">
          <button type="submit" class="primary">
            Filter
          </button>
        </div>
      </form>
      {logs.state === 'loading' && <Loading what="request records" />}
      {logs.state === 'error' && <LoadError error={logs.error} retry={logs.reload} />}
      {logs.state === 'ready' && logs.value.list.length === 0 && <Empty>No request records match.</Empty>}
      {logs.state === 'ready' && logs.value.list.length > 0 && (
        <TableFrame label="Request records">
          <table>
            <caption class="sr-only">Request records, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Model</th>
                <th scope="col" class="num">
                  Status
                </th>
                <th scope="col" class="num">
                  Input
                </th>
                <th scope="col" class="num">
                  Output
                </th>
                <th scope="col" class="num">
                  Charged
                </th>
                <th scope="col">Cache</th>
                <th scope="col">Request id</th>
                <th scope="col">
                  <span class="sr-only">Details</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {logs.value.list.map((r) => (
                <tr key={r.request_id}>
                  <td>{formatDateTime(r.created_at, locale)}</td>
                  <td>{r.model}</td>
                  <td class="num">{r.status_code}</td>
                  <td class="num">{formatNumber(r.input_tokens, locale)}</td>
                  <td class="num">{formatNumber(r.output_tokens, locale)}</td>
                  <td class="num">{formatMoney(r.charged_micro_usd, locale)}</td>
                  <td>{r.cache_hit ? <span class="badge">hit</span> : ''}</td>
                  <td>
                    <code>{r.request_id}</code>
                  </td>
                  <td>
                    <button type="button" class="link" onClick={() => setOpen(r)}>
                      Details<span class="sr-only"> of {r.request_id}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
      {logs.state === 'ready' && <Pager page={page} total={logs.value.total} pageSize={PAGE_SIZE} onPage={setPage} />}
      {open && (
        <section class="card" aria-labelledby="record-title">
          <h2 id="record-title">Request {open.request_id}</h2>
          <dl class="details">
            {Object.entries(open)
              .filter(([k]) => k !== 'scores')
              .map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>
                    {k === 'charged_micro_usd' && typeof v === 'number'
                      ? formatMoney(v, locale)
                      : typeof v === 'object'
                        ? JSON.stringify(v)
                        : String(v)}
                  </dd>
                </div>
              ))}
          </dl>
          <h3>Scores</h3>
          {open.scores.length === 0 ? (
            <p class="muted">No scores yet: send them with POST /v1/scores.</p>
          ) : (
            <ul class="plain" aria-label="Scores">
              {open.scores.map((score) => (
                <li key={score.name}>
                  <strong>{score.name}</strong>: {formatNumber(score.value, locale)}
                  {score.comment && <span class="muted"> — {score.comment}</span>}
                </li>
              ))}
            </ul>
          )}
          <button type="button" onClick={() => setOpen(null)}>
            Close
          </button>
        </section>
      )}
    </section>
  );
}
