import { useEffect, useState } from 'preact/hooks';
import { unwrap } from '../api/client';
import { fieldErrors, type FieldErrors } from '../api/field-errors';
import type { Page } from '../api/models';
import { Field, FormError } from '../components/Field';
import { Empty, LoadError, Loading } from '../components/States';
import { messageOf, useLoad } from '../components/use-load';
import { useConsole } from '../context';
import { formatDateTime, formatNumber, utcDay } from '../format';
import { TableFrame } from '../components/TableFrame';

interface DatasetExport {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  records: number | null;
  error: string | null;
  created_at: string;
  finished_at: string | null;
  download: { url: string; expires_at: string } | null;
}

type Fields = 'start' | 'end' | 'model' | 'tag' | 'score_name';

/** Datasets: content logging on or off, and JSONL exports of the usage records: start, progress, download. */
export function DatasetsPage() {
  const { api, locale } = useConsole();
  const settings = useLoad(() => unwrap<{ log_content: boolean }>(api.GET('/api/v1/account/settings')), []);
  const exports = useLoad(
    () =>
      unwrap<Page<DatasetExport>>(
        api.GET('/api/v1/datasets/exports', { params: { query: { page: '1', page_size: '20' } } }),
      ),
    [],
  );
  const [form, setForm] = useState({ start: utcDay(6), end: utcDay(0), model: '', tag: '', score_name: '' });
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});
  const [busy, setBusy] = useState(false);
  const [settingError, setSettingError] = useState<string>();

  // Progress: while an export is queued or running, look again every two seconds.
  const pending =
    exports.state === 'ready' && exports.value.list.some((e) => e.status === 'queued' || e.status === 'running');
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(exports.reload, 2000);
    return () => clearTimeout(timer);
  });

  async function toggle(on: boolean) {
    setSettingError(undefined);
    try {
      await unwrap(api.PATCH('/api/v1/account/settings', { body: { log_content: on } }));
      settings.reload();
    } catch (err) {
      setSettingError(messageOf(err));
    }
  }
  async function start(event: Event) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      const optional = Object.fromEntries(
        Object.entries({ model: form.model, tag: form.tag, score_name: form.score_name }).filter(
          ([, v]) => v.trim() !== '',
        ),
      );
      await unwrap(
        api.POST('/api/v1/datasets/exports', {
          body: {
            start: `${form.start}T00:00:00Z`,
            end: new Date(Date.parse(`${form.end}T00:00:00Z`) + 86_400_000).toISOString(),
            ...optional,
          },
        }),
      );
      exports.reload();
    } catch (err) {
      setErrors(
        fieldErrors(err, {}, { start: 'start', end: 'end', model: 'model', tag: 'tag', score_name: 'score_name' }),
      );
    } finally {
      setBusy(false);
    }
  }
  const input = (field: Fields) => ({
    value: form[field],
    onInput: (e: Event) => setForm({ ...form, [field]: (e.currentTarget as HTMLInputElement).value }),
  });

  return (
    <section aria-labelledby="datasets-title">
      <h1 id="datasets-title">Datasets</h1>
      <div class="card">
        <h2>Content logging</h2>
        {settings.state === 'loading' && <Loading what="settings" />}
        {settings.state === 'error' && <LoadError error={settings.error} retry={settings.reload} />}
        {settings.state === 'ready' && (
          <div class="check">
            <input
              id="log-content"
              type="checkbox"
              checked={settings.value.log_content}
              onChange={(e) => void toggle(e.currentTarget.checked)}
            />
            <label for="log-content">
              Keep every call's prompt and completion (in object storage, never in the usage table) so exports include
              them
            </label>
          </div>
        )}
        {settingError && (
          <p class="error" role="alert">
            {settingError}
          </p>
        )}
      </div>
      <form class="card filters" onSubmit={start} noValidate aria-label="New export">
        <Field label="From" error={errors.start}>
          {(p) => <input {...p} type="date" {...input('start')} />}
        </Field>
        <Field label="To" error={errors.end}>
          {(p) => <input {...p} type="date" {...input('end')} />}
        </Field>
        <Field label="Model" error={errors.model}>
          {(p) => <input {...p} {...input('model')} />}
        </Field>
        <Field label="Tag" error={errors.tag}>
          {(p) => <input {...p} {...input('tag')} />}
        </Field>
        <Field label="Score name" error={errors.score_name}>
          {(p) => <input {...p} {...input('score_name')} />}
        </Field>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Start export
          </button>
        </div>
        <FormError error={errors.form} />
      </form>
      {exports.state === 'loading' && <Loading what="exports" />}
      {exports.state === 'error' && <LoadError error={exports.error} retry={exports.reload} />}
      {exports.state === 'ready' && exports.value.list.length === 0 && <Empty>No exports yet.</Empty>}
      {exports.state === 'ready' && exports.value.list.length > 0 && (
        <TableFrame label="Dataset exports">
          <table>
            <caption class="sr-only">Dataset exports, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Records
                </th>
                <th scope="col">File</th>
              </tr>
            </thead>
            <tbody>
              {exports.value.list.map((e) => (
                <tr key={e.id}>
                  <td>{formatDateTime(e.created_at, locale)}</td>
                  <td>
                    <span role="status">
                      {e.status === 'running' || e.status === 'queued' ? `${e.status}…` : e.status}
                    </span>
                    {e.error && <span class="error"> {e.error}</span>}
                  </td>
                  <td class="num">{e.records === null ? '—' : formatNumber(e.records, locale)}</td>
                  <td>
                    {e.download ? (
                      <a href={e.download.url} download>
                        Download JSONL
                      </a>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
    </section>
  );
}
