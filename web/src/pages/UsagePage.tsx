import { useEffect, useMemo, useState } from 'preact/hooks';
import { unwrap } from '../api/client';
import { fieldErrors } from '../api/field-errors';
import type { GroupBy, Key, Page, Report } from '../api/models';
import { Field, FormError } from '../components/Field';
import { Empty, Loading } from '../components/States';
import { useConsole } from '../context';
import { formatDay, formatMoney, formatNumber, spendByDay, utcDay } from '../format';
import { UsageChart } from './usage/UsageChart';
import { TableFrame } from '../components/TableFrame';

const MAX_DAYS = 93;
const GROUPS: { value: GroupBy; label: string }[] = [
  { value: 'day', label: 'Day' },
  { value: 'model', label: 'Model' },
  { value: 'key', label: 'Key' },
  { value: 'tag', label: 'Tag' },
];

type Query = { group_by: GroupBy; start: string; end: string };
type Fields = 'start' | 'end';

/** Usage report: group by day, model, key or tag over up to 93 days; chart, table and CSV download. */
export function UsagePage() {
  const { api, config, locale } = useConsole();
  const [draft, setDraft] = useState<Query>({ group_by: 'day', start: utcDay(29), end: utcDay(0) });
  const [report, setReport] = useState<Report>();
  const [loading, setLoading] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<Fields | 'form', string>>>({});
  const [keyNames, setKeyNames] = useState<Map<string, string>>(new Map());

  async function run(event?: Event) {
    event?.preventDefault();
    const days = (Date.parse(draft.end) - Date.parse(draft.start)) / 86_400_000 + 1;
    if (!(days >= 1)) return setErrors({ end: 'The end date must be on or after the start date.' });
    if (days > MAX_DAYS) return setErrors({ end: `A report covers at most ${MAX_DAYS} days; this range has ${days}.` });
    setLoading(true);
    setErrors({});
    try {
      const next = await unwrap<Report>(api.GET('/api/v1/usage/report', { params: { query: draft } }));
      if (next.group_by === 'key' && keyNames.size === 0) {
        const keys = await unwrap<Page<Key>>(
          api.GET('/api/v1/keys', { params: { query: { page: '1', page_size: '100' } } }),
        ).catch(() => undefined);
        setKeyNames(
          new Map(
            keys?.list.map((k) => [k.id, k.name ? `${k.name} (${k.prefix}…${k.last4})` : `${k.prefix}…${k.last4}`]),
          ),
        );
      }
      setReport(next);
    } catch (err) {
      setErrors(fieldErrors(err, {}, { start: 'start', end: 'end' }));
    } finally {
      setLoading(false);
    }
  }

  useEffect(() => {
    void run();
  }, []);

  const csv = `${config.api_base}/api/v1/usage/report?${new URLSearchParams({ ...draft, format: 'csv' }).toString()}`;
  // With bearer tokens (an API on another site) a plain link would carry no credential: fetch the
  // file with the token and hand the browser its bytes.
  async function downloadCsv(event: Event) {
    if (config.session !== 'bearer') return;
    event.preventDefault();
    setErrors({});
    try {
      const { data, response } = await api.GET('/api/v1/usage/report', {
        params: { query: { ...draft, format: 'csv' } },
        parseAs: 'blob',
      });
      if (!response.ok || !(data instanceof Blob)) throw new Error(`The CSV could not be made (${response.status}).`);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(data);
      link.download = `usage-${draft.start}-${draft.end}.csv`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    } catch (err) {
      setErrors({ form: err instanceof Error ? err.message : String(err) });
    }
  }
  const label = (group: string | null, by: GroupBy) =>
    group === null
      ? by === 'tag'
        ? '(untagged)'
        : '—'
      : by === 'day'
        ? formatDay(group, locale)
        : by === 'key'
          ? (keyNames.get(group) ?? group)
          : group;
  const chart = useMemo(() => {
    if (!report) return undefined;
    if (report.group_by === 'day') return spendByDay(report);
    return {
      labels: report.rows.map((r) => label(r.group, report.group_by)),
      values: report.rows.map((r) => r.charged_micro_usd),
    };
  }, [report, keyNames]);

  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <form class="filters" onSubmit={run} noValidate>
        <Field label="Group by">
          {(p) => (
            <select
              {...p}
              value={draft.group_by}
              onChange={(e) => setDraft({ ...draft, group_by: e.currentTarget.value as GroupBy })}
            >
              {GROUPS.map((g) => (
                <option key={g.value} value={g.value}>
                  {g.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="From" error={errors.start}>
          {(p) => (
            <input
              {...p}
              type="date"
              value={draft.start}
              onInput={(e) => setDraft({ ...draft, start: e.currentTarget.value })}
            />
          )}
        </Field>
        <Field label="To" error={errors.end} hint={`Up to ${MAX_DAYS} days, whole days in UTC.`}>
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
          <button type="submit" class="primary" disabled={loading}>
            Show report
          </button>
          <a class="button" href={csv} download onClick={(e) => void downloadCsv(e)}>
            Download CSV
          </a>
        </div>
      </form>
      <FormError error={errors.form} />
      {loading && !report && <Loading what="the report" />}
      {report && report.rows.length === 0 && <Empty>No calls in this range.</Empty>}
      {report && chart && report.rows.length > 0 && (
        <>
          <UsageChart
            labels={chart.labels}
            values={chart.values}
            days={report.group_by === 'day'}
            locale={locale}
            title={`Spend by ${report.group_by}, ${formatDay(draft.start, locale)} to ${formatDay(draft.end, locale)}`}
          />
          <TableFrame label="Usage report">
            <table>
              <caption>
                Spend by {report.group_by} — total {formatMoney(report.total.charged_micro_usd, locale)} over{' '}
                {formatNumber(report.total.requests, locale)} requests
              </caption>
              <thead>
                <tr>
                  <th scope="col">{GROUPS.find((g) => g.value === report.group_by)?.label}</th>
                  <th scope="col" class="num">
                    Requests
                  </th>
                  <th scope="col" class="num">
                    Errors
                  </th>
                  <th scope="col" class="num">
                    Input tokens
                  </th>
                  <th scope="col" class="num">
                    Output tokens
                  </th>
                  <th scope="col" class="num">
                    Cached tokens
                  </th>
                  <th scope="col" class="num">
                    Spend
                  </th>
                </tr>
              </thead>
              <tbody>
                {report.rows.map((r) => (
                  <tr key={String(r.group)}>
                    <th scope="row">{label(r.group, report.group_by)}</th>
                    <td class="num">{formatNumber(r.requests, locale)}</td>
                    <td class="num">{formatNumber(r.errors, locale)}</td>
                    <td class="num">{formatNumber(r.input_tokens, locale)}</td>
                    <td class="num">{formatNumber(r.output_tokens, locale)}</td>
                    <td class="num">{formatNumber(r.cached_tokens, locale)}</td>
                    <td class="num">{formatMoney(r.charged_micro_usd, locale)}</td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row">Total</th>
                  <td class="num">{formatNumber(report.total.requests, locale)}</td>
                  <td class="num">{formatNumber(report.total.errors, locale)}</td>
                  <td class="num">{formatNumber(report.total.input_tokens, locale)}</td>
                  <td class="num">{formatNumber(report.total.output_tokens, locale)}</td>
                  <td class="num">{formatNumber(report.total.cached_tokens, locale)}</td>
                  <td class="num">{formatMoney(report.total.charged_micro_usd, locale)}</td>
                </tr>
              </tfoot>
            </table>
          </TableFrame>
        </>
      )}
    </section>
  );
}
