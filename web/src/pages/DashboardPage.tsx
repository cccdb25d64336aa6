import { unwrap } from '../api/client';
import type { LedgerEntry, LogRecord, Page, Report } from '../api/models';
import { Empty, LoadError, Loading } from '../components/States';
import { useLoad } from '../components/use-load';
import { useConsole } from '../context';
import { formatDateTime, formatMoney, formatNumber, spendByDay, utcDay } from '../format';
import { CachePurge } from './dashboard/CachePurge';
import { UsageChart } from './usage/UsageChart';

/** This month's share of requests answered from the response cache (docs/reference/cache.md). */
function hitRatio(total: { requests: number; cache_hits: number }, locale: string): string {
  if (total.requests === 0) return '—';
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(
    total.cache_hits / total.requests,
  );
}

/** Dashboard: balance, this month's spend by day and cache hit ratio, top models, recent errors. */
export function DashboardPage() {
  const { api, locale, user } = useConsole();
  const monthStart = `${utcDay(0).slice(0, 8)}01`;
  const data = useLoad(async () => {
    const range = { start: monthStart, end: utcDay(0) };
    const [ledger, byDay, byModel, logs] = await Promise.all([
      unwrap<Page<LedgerEntry>>(api.GET('/api/v1/ledger', { params: { query: { page: '1', page_size: '1' } } })),
      unwrap<Report>(api.GET('/api/v1/usage/report', { params: { query: { group_by: 'day', ...range } } })),
      unwrap<Report>(api.GET('/api/v1/usage/report', { params: { query: { group_by: 'model', ...range } } })),
      unwrap<Page<LogRecord>>(api.GET('/api/v1/usage/logs', { params: { query: { page: '1', page_size: '100' } } })),
    ]);
    return {
      balance: ledger.list[0]?.balance_after_micro_usd ?? 0,
      byDay,
      byModel,
      errors: logs.list.filter((r) => r.status_code >= 400).slice(0, 5),
    };
  }, []);

  return (
    <section aria-labelledby="dash-title">
      <h1 id="dash-title">Hello{user.nickname ? `, ${user.nickname}` : ''}</h1>
      {data.state === 'loading' && <Loading what="your dashboard" />}
      {data.state === 'error' && <LoadError error={data.error} retry={data.reload} />}
      {data.state === 'ready' && (
        <>
          <div class="stats">
            <div class="stat">
              <h2>Balance</h2>
              <p class="big">{formatMoney(data.value.balance, locale)}</p>
            </div>
            <div class="stat">
              <h2>Spent this month</h2>
              <p class="big">{formatMoney(data.value.byDay.total.charged_micro_usd, locale)}</p>
            </div>
            <div class="stat">
              <h2>Requests this month</h2>
              <p class="big">{formatNumber(data.value.byDay.total.requests, locale)}</p>
            </div>
            <div class="stat">
              <h2>Cache hit ratio</h2>
              <p class="big">{hitRatio(data.value.byDay.total, locale)}</p>
              <CachePurge />
            </div>
          </div>
          <h2>Spend by day</h2>
          {data.value.byDay.rows.length === 0 ? (
            <Empty>No calls this month yet.</Empty>
          ) : (
            <UsageChart {...spendByDay(data.value.byDay)} days locale={locale} title="Spend by day this month" />
          )}
          <div class="two">
            <div>
              <h2>Top models</h2>
              {data.value.byModel.rows.length === 0 ? (
                <Empty>No models called this month.</Empty>
              ) : (
                <ol class="plain">
                  {[...data.value.byModel.rows]
                    .sort((a, b) => b.charged_micro_usd - a.charged_micro_usd)
                    .slice(0, 5)
                    .map((r) => (
                      <li key={String(r.group)}>
                        <strong>{r.group}</strong> — {formatMoney(r.charged_micro_usd, locale)},{' '}
                        {formatNumber(r.requests, locale)} {r.requests === 1 ? 'request' : 'requests'}
                      </li>
                    ))}
                </ol>
              )}
            </div>
            <div>
              <h2>Recent errors</h2>
              {data.value.errors.length === 0 ? (
                <Empty>No failed calls among the latest 100.</Empty>
              ) : (
                <ul class="plain">
                  {data.value.errors.map((r) => (
                    <li key={r.request_id}>
                      <span class="badge revoked">{r.status_code}</span> {r.model} —{' '}
                      {formatDateTime(r.created_at, locale)} <code>{r.request_id}</code>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          </div>
        </>
      )}
    </section>
  );
}
