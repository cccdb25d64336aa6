import { useEffect, useState } from 'preact/hooks';
import { unwrap } from '../../api/client';
import type { Page, WebhookDelivery, WebhookEndpoint } from '../../api/models';
import { Pager } from '../../components/Pager';
import { Empty, LoadError, Loading } from '../../components/States';
import { messageOf, useLoad } from '../../components/use-load';
import { useConsole } from '../../context';
import { formatDateTime, formatNumber } from '../../format';
import { TableFrame } from '../../components/TableFrame';

const PAGE_SIZE = 20;
// While a delivery is pending its outcome comes within seconds: look again until it settles.
const PENDING_POLL_MS = 1_000;

/** One endpoint's deliveries, newest first: status, time, duration, the receiver's answer; redeliver. */
export function DeliveryList({
  endpoint,
  round,
  onClose,
}: {
  endpoint: WebhookEndpoint;
  round: number;
  onClose(): void;
}) {
  const { api, locale } = useConsole();
  const [page, setPage] = useState(1);
  const [actionError, setActionError] = useState<string>();
  const deliveries = useLoad(
    () =>
      unwrap<Page<WebhookDelivery>>(
        api.GET('/api/v1/webhooks/{id}/deliveries', {
          params: { path: { id: endpoint.id }, query: { page: String(page), page_size: String(PAGE_SIZE) } },
        }),
      ),
    [endpoint.id, page, round],
  );
  const shown = deliveries.state === 'ready' ? deliveries.value : undefined;
  const { reload } = deliveries;
  useEffect(() => {
    if (!shown?.list.some((d) => d.status === 'pending')) return;
    const timer = setTimeout(reload, PENDING_POLL_MS);
    return () => clearTimeout(timer);
  }, [shown, reload]);

  async function redeliver(delivery: WebhookDelivery) {
    setActionError(undefined);
    try {
      await unwrap(
        api.POST('/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver', {
          params: { path: { id: endpoint.id, delivery_id: delivery.id } },
        }),
      );
      deliveries.reload();
    } catch (err) {
      setActionError(messageOf(err));
    }
  }

  return (
    <section class="card" aria-labelledby="deliveries-title">
      <div class="page-head">
        <h2 id="deliveries-title">
          Deliveries to <code>{endpoint.url}</code>
        </h2>
        <div>
          <button type="button" onClick={deliveries.reload}>
            Refresh
          </button>{' '}
          <button type="button" onClick={onClose}>
            Close deliveries
          </button>
        </div>
      </div>
      {actionError && (
        <p class="error" role="alert">
          {actionError}
        </p>
      )}
      {deliveries.state === 'loading' && <Loading what="the deliveries" />}
      {deliveries.state === 'error' && <LoadError error={deliveries.error} retry={deliveries.reload} />}
      {deliveries.state === 'ready' && deliveries.value.total === 0 && (
        <Empty>No deliveries yet. Send a test event to see one.</Empty>
      )}
      {deliveries.state === 'ready' && deliveries.value.list.length > 0 && (
        <>
          <TableFrame label="Deliveries">
            <table>
              <caption class="sr-only">Deliveries, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Time</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Response</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {deliveries.value.list.map((d) => {
                  const last = d.attempts.at(-1);
                  return (
                    <tr key={d.id}>
                      <th scope="row">
                        <code>{d.event_type}</code>
                      </th>
                      <td>
                        <span
                          class={`badge ${d.status === 'delivered' ? 'active' : d.status === 'failed' ? 'revoked' : 'disabled'}`}
                        >
                          {d.status}
                        </span>
                        {last?.status_code != null && <span class="muted"> HTTP {last.status_code}</span>}
                      </td>
                      <td>{formatDateTime(last?.attempted_at ?? d.created_at, locale)}</td>
                      <td class="num">{formatNumber(d.attempt_count, locale)}</td>
                      <td class="num">
                        {last?.duration_ms != null ? `${formatNumber(last.duration_ms, locale)} ms` : '—'}
                      </td>
                      <td class="excerpt">
                        {last?.response_excerpt || last?.error || d.last_error || <span class="muted">—</span>}
                      </td>
                      <td class="row-actions">
                        {d.status !== 'pending' && (
                          <button
                            type="button"
                            aria-label={`Redeliver ${d.event_type} of ${formatDateTime(d.created_at, locale)}`}
                            onClick={() => void redeliver(d)}
                          >
                            Redeliver
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableFrame>
          <Pager page={page} total={deliveries.value.total} pageSize={PAGE_SIZE} onPage={setPage} />
        </>
      )}
    </section>
  );
}
