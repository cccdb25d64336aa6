import { useState } from 'preact/hooks';
import { unwrap } from '../api/client';
import type { Page, WebhookEndpoint, WebhookWithSecret } from '../api/models';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Pager } from '../components/Pager';
import { Empty, LoadError, Loading } from '../components/States';
import { messageOf, useLoad } from '../components/use-load';
import { useConsole } from '../context';
import { formatDateTime } from '../format';
import { DeliveryList } from './webhooks/DeliveryList';
import { NewWebhookSecret } from './webhooks/NewWebhookSecret';
import { WebhookForm } from './webhooks/WebhookForm';
import { TableFrame } from '../components/TableFrame';

const PAGE_SIZE = 20;

type Mode =
  | { kind: 'list' }
  | { kind: 'create' }
  | { kind: 'edit'; endpoint: WebhookEndpoint }
  | { kind: 'secret'; endpoint: WebhookWithSecret; rotated: boolean };
type Confirm = { kind: 'rotate' | 'delete'; endpoint: WebhookEndpoint };

/** Webhooks: endpoints (create, edit, rotate the secret, delete), test events and each endpoint's deliveries. */
export function WebhooksPage() {
  const { api, locale } = useConsole();
  const [page, setPage] = useState(1);
  const [mode, setMode] = useState<Mode>({ kind: 'list' });
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const [viewing, setViewing] = useState<WebhookEndpoint | null>(null);
  // Bumped after a test event is sent, so the open delivery list shows it.
  const [deliveryRound, setDeliveryRound] = useState(0);
  const [actionError, setActionError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);
  const endpoints = useLoad(
    () =>
      unwrap<Page<WebhookEndpoint>>(
        api.GET('/api/v1/webhooks', { params: { query: { page: String(page), page_size: String(PAGE_SIZE) } } }),
      ),
    [page],
  );

  async function act<T>(call: () => Promise<T>, then: (result: T) => void) {
    setBusy(true);
    setActionError(undefined);
    setNotice(undefined);
    try {
      then(await call());
    } catch (err) {
      setActionError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }
  const path = (endpoint: WebhookEndpoint) => ({ params: { path: { id: endpoint.id } } });

  function sendTest(endpoint: WebhookEndpoint) {
    void act(
      () => unwrap(api.POST('/api/v1/webhooks/{id}/test', path(endpoint))),
      () => {
        setNotice(`A webhook.test event is on its way to ${endpoint.url}.`);
        setViewing(endpoint);
        setDeliveryRound((n) => n + 1);
      },
    );
  }

  function confirmed({ kind, endpoint }: Confirm) {
    if (kind === 'rotate') {
      void act(
        () => unwrap<WebhookWithSecret>(api.POST('/api/v1/webhooks/{id}/rotate-secret', path(endpoint))),
        (rotated) => {
          setConfirm(null);
          setMode({ kind: 'secret', endpoint: rotated, rotated: true });
        },
      );
    } else {
      void act(
        () => unwrap(api.DELETE('/api/v1/webhooks/{id}', path(endpoint))),
        () => {
          setConfirm(null);
          if (viewing?.id === endpoint.id) setViewing(null);
          endpoints.reload();
        },
      );
    }
  }

  const label = (endpoint: WebhookEndpoint) => endpoint.description || endpoint.url;
  return (
    <section aria-labelledby="webhooks-title">
      <div class="page-head">
        <h1 id="webhooks-title">Webhooks</h1>
        {mode.kind === 'list' && (
          <button type="button" class="primary" onClick={() => setMode({ kind: 'create' })}>
            Add endpoint
          </button>
        )}
      </div>
      <p class="muted">
        Finished videos, image tasks and batches are POSTed to your endpoints, signed per Standard Webhooks.
      </p>
      {mode.kind === 'secret' && (
        <NewWebhookSecret
          endpoint={mode.endpoint}
          rotated={mode.rotated}
          onDone={() => {
            setMode({ kind: 'list' });
            endpoints.reload();
          }}
        />
      )}
      {(mode.kind === 'create' || mode.kind === 'edit') && (
        <div class="card">
          <h2>{mode.kind === 'create' ? 'New webhook endpoint' : `Edit ${label(mode.endpoint)}`}</h2>
          <WebhookForm
            editing={mode.kind === 'edit' ? mode.endpoint : undefined}
            submitLabel={mode.kind === 'create' ? 'Create webhook' : 'Save changes'}
            onCancel={() => setMode({ kind: 'list' })}
            onSubmit={async (body) => {
              if (mode.kind === 'create') {
                const created = await unwrap<WebhookWithSecret>(api.POST('/api/v1/webhooks', { body }));
                setMode({ kind: 'secret', endpoint: created, rotated: false });
              } else {
                await unwrap(api.PATCH('/api/v1/webhooks/{id}', { ...path(mode.endpoint), body }));
                setMode({ kind: 'list' });
                endpoints.reload();
              }
            }}
          />
        </div>
      )}
      {!confirm && actionError && (
        <p class="error" role="alert">
          {actionError}
        </p>
      )}
      <p role="status" aria-live="polite" class="muted">
        {notice}
      </p>
      {endpoints.state === 'loading' && <Loading what="your webhooks" />}
      {endpoints.state === 'error' && <LoadError error={endpoints.error} retry={endpoints.reload} />}
      {endpoints.state === 'ready' && endpoints.value.total === 0 && (
        <Empty>No webhook endpoints yet. Add one to hear when a task or batch finishes.</Empty>
      )}
      {endpoints.state === 'ready' && endpoints.value.list.length > 0 && (
        <>
          <TableFrame label="Webhook endpoints">
            <table>
              <caption class="sr-only">Your webhook endpoints</caption>
              <thead>
                <tr>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Events</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {endpoints.value.list.map((endpoint) => (
                  <tr key={endpoint.id}>
                    <th scope="row">
                      <code>{endpoint.url}</code>
                      {endpoint.description && <div class="muted">{endpoint.description}</div>}
                    </th>
                    <td>{endpoint.events.join(', ')}</td>
                    <td>
                      <span class={`badge ${endpoint.enabled ? 'active' : 'disabled'}`}>
                        {endpoint.enabled ? 'enabled' : `disabled (${endpoint.disabled_reason ?? 'owner'})`}
                      </span>
                    </td>
                    <td>{formatDateTime(endpoint.created_at, locale)}</td>
                    <td class="row-actions">
                      <button
                        type="button"
                        aria-label={`Deliveries of ${label(endpoint)}`}
                        onClick={() => setViewing(endpoint)}
                      >
                        Deliveries
                      </button>
                      <button
                        type="button"
                        aria-label={`Send test event to ${label(endpoint)}`}
                        disabled={busy || !endpoint.enabled}
                        onClick={() => sendTest(endpoint)}
                      >
                        Send test
                      </button>
                      <button
                        type="button"
                        aria-label={`Edit ${label(endpoint)}`}
                        onClick={() => setMode({ kind: 'edit', endpoint })}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        aria-label={`Rotate secret of ${label(endpoint)}`}
                        onClick={() => setConfirm({ kind: 'rotate', endpoint })}
                      >
                        Rotate secret
                      </button>
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Delete ${label(endpoint)}`}
                        onClick={() => setConfirm({ kind: 'delete', endpoint })}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
          <Pager page={page} total={endpoints.value.total} pageSize={PAGE_SIZE} onPage={setPage} />
        </>
      )}
      {viewing && <DeliveryList endpoint={viewing} round={deliveryRound} onClose={() => setViewing(null)} />}
      {confirm && (
        <ConfirmDialog
          title={confirm.kind === 'rotate' ? 'Rotate the signing secret?' : 'Delete this webhook endpoint?'}
          confirm={confirm.kind === 'rotate' ? 'Rotate secret' : 'Delete'}
          busy={busy}
          onConfirm={() => confirmed(confirm)}
          onCancel={() => setConfirm(null)}
        >
          <p>
            {confirm.kind === 'rotate'
              ? 'A new secret signs every delivery from now on; the current one keeps signing beside it for 24 hours, so update your receiver within a day.'
              : `${confirm.endpoint.url} stops receiving events, and its delivery history is deleted. This cannot be undone.`}
          </p>
          {actionError && (
            <p class="error" role="alert">
              {actionError}
            </p>
          )}
        </ConfirmDialog>
      )}
    </section>
  );
}
