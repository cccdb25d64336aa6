import { useState } from 'preact/hooks';
import { unwrap } from '../api/client';
import type { Group, Key, NewKey, Page, Preset } from '../api/models';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Pager } from '../components/Pager';
import { Empty, LoadError, Loading } from '../components/States';
import { messageOf, useLoad } from '../components/use-load';
import { useConsole } from '../context';
import { KeyForm, type TemplateChoice } from './keys/KeyForm';
import { KeyTable } from './keys/KeyTable';
import { NewKeySecret } from './keys/NewKeySecret';

const PAGE_SIZE = 20;

type Mode = { kind: 'list' } | { kind: 'create' } | { kind: 'edit'; key: Key } | { kind: 'created'; key: NewKey };

/** Keys: the list, create (with every setting), the new secret once, edit, disable/enable, revoke (confirmed). */
export function KeysPage() {
  const { api } = useConsole();
  const [page, setPage] = useState(1);
  const [mode, setMode] = useState<Mode>({ kind: 'list' });
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [disabling, setDisabling] = useState<Key | null>(null);
  const [revokeError, setRevokeError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const keys = useLoad(
    () =>
      unwrap<Page<Key>>(
        api.GET('/api/v1/keys', { params: { query: { page: String(page), page_size: String(PAGE_SIZE) } } }),
      ),
    [page],
  );
  const choices = useLoad(
    () =>
      Promise.all([
        unwrap<Group[]>(api.GET('/api/v1/keys/groups')),
        unwrap<Page<Preset>>(api.GET('/api/v1/presets', { params: { query: { page: '1', page_size: '100' } } })).then(
          (p) => p.list,
        ),
        unwrap<Page<TemplateChoice>>(
          api.GET('/api/v1/prompt-templates', { params: { query: { page: '1', page_size: '100' } } }),
        ).then((p) => p.list),
      ]),
    [],
  );
  const [bindError, setBindError] = useState<string>();

  /**
   * Binds the key to `templateId` ('' = none) on the template side, where bindings live: adding
   * the key to a template moves it off any other, removing it from its template unbinds it.
   */
  async function bindTemplate(keyId: string, templateId: string) {
    const current = templates.find((t) => t.key_ids.includes(keyId));
    if ((current?.id ?? '') === templateId) return;
    const target = templateId ? templates.find((t) => t.id === templateId) : current;
    if (!target) return;
    const key_ids = templateId ? [...target.key_ids, keyId] : target.key_ids.filter((id) => id !== keyId);
    await unwrap(
      api.PATCH('/api/v1/prompt-templates/{id}', { params: { path: { id: target.id } }, body: { key_ids } }),
    );
    choices.reload();
  }

  async function revoke(key: Key) {
    setBusy(true);
    setRevokeError(undefined);
    try {
      await unwrap(api.POST('/api/v1/keys/{id}/revoke', { params: { path: { id: key.id } } }));
      setRevoking(null);
      keys.reload();
    } catch (err) {
      setRevokeError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  // Enabling needs no confirmation (it restores what the owner had); disabling stops live traffic.
  async function setStatus(key: Key, status: 'active' | 'disabled') {
    setBusy(true);
    setRevokeError(undefined);
    try {
      await unwrap(api.PATCH('/api/v1/keys/{id}', { params: { path: { id: key.id } }, body: { status } }));
      setDisabling(null);
      keys.reload();
    } catch (err) {
      setRevokeError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  const [groups, presets, templates] = choices.state === 'ready' ? choices.value : [[], [], []];
  return (
    <section aria-labelledby="keys-title">
      <div class="page-head">
        <h1 id="keys-title">API keys</h1>
        {mode.kind === 'list' && (
          <button type="button" class="primary" onClick={() => setMode({ kind: 'create' })}>
            Create key
          </button>
        )}
      </div>
      {bindError && (
        <p class="error" role="alert">
          {bindError}
        </p>
      )}
      {mode.kind === 'created' && (
        <NewKeySecret
          created={mode.key}
          onDone={() => {
            setMode({ kind: 'list' });
            keys.reload();
          }}
        />
      )}
      {(mode.kind === 'create' || mode.kind === 'edit') && (
        <div class="card">
          <h2>{mode.kind === 'create' ? 'New key' : `Edit “${mode.key.name || mode.key.prefix}”`}</h2>
          {choices.state === 'error' && <LoadError error={choices.error} retry={choices.reload} />}
          <KeyForm
            editing={mode.kind === 'edit' ? mode.key : undefined}
            groups={
              groups.length
                ? groups
                : [
                    {
                      id: 'default',
                      models: '*',
                      discount_percent: 0,
                      rpm_limit: null,
                      tpm_limit: null,
                      concurrency_limit: null,
                    },
                  ]
            }
            presets={presets}
            templates={templates}
            submitLabel={mode.kind === 'create' ? 'Create key' : 'Save changes'}
            onCancel={() => setMode({ kind: 'list' })}
            onSubmit={async (body, templateId) => {
              setBindError(undefined);
              if (mode.kind === 'create') {
                const created = await unwrap<NewKey>(api.POST('/api/v1/keys', { body }));
                // The key exists now: its secret is shown whatever the binding does.
                await bindTemplate(created.id, templateId).catch((err: unknown) =>
                  setBindError(`The key was created, but not bound to the template: ${messageOf(err)}`),
                );
                setMode({ kind: 'created', key: created });
              } else {
                const { kind: _, ...changes } = body;
                await unwrap<Key>(
                  api.PATCH('/api/v1/keys/{id}', { params: { path: { id: mode.key.id } }, body: changes }),
                );
                await bindTemplate(mode.key.id, templateId);
                setMode({ kind: 'list' });
                keys.reload();
              }
            }}
          />
        </div>
      )}
      {keys.state === 'loading' && <Loading what="your keys" />}
      {keys.state === 'error' && <LoadError error={keys.error} retry={keys.reload} />}
      {keys.state === 'ready' && keys.value.total === 0 && <Empty>No keys yet. Create one to call the gateway.</Empty>}
      {keys.state === 'ready' && keys.value.list.length > 0 && (
        <>
          <KeyTable
            keys={keys.value.list}
            busy={busy}
            onEdit={(key) => setMode({ kind: 'edit', key })}
            onEnable={(key) => void setStatus(key, 'active')}
            onDisable={setDisabling}
            onRevoke={setRevoking}
          />
          <Pager page={page} total={keys.value.total} pageSize={PAGE_SIZE} onPage={setPage} />
        </>
      )}
      {!revoking && !disabling && revokeError && (
        <p class="error" role="alert">
          {revokeError}
        </p>
      )}
      {disabling && (
        <ConfirmDialog
          title="Disable this key?"
          confirm="Disable"
          busy={busy}
          onConfirm={() => void setStatus(disabling, 'disabled')}
          onCancel={() => setDisabling(null)}
        >
          <p>Calls with “{disabling.name || disabling.prefix}” are refused until you enable it again.</p>
          {revokeError && (
            <p class="error" role="alert">
              {revokeError}
            </p>
          )}
        </ConfirmDialog>
      )}
      {revoking && (
        <ConfirmDialog
          title="Revoke this key?"
          confirm="Revoke"
          busy={busy}
          onConfirm={() => void revoke(revoking)}
          onCancel={() => setRevoking(null)}
        >
          <p>
            “{revoking.name || revoking.prefix}” (
            <code>
              {revoking.prefix}…{revoking.last4}
            </code>
            ) stops working at once, everywhere. This cannot be undone.
          </p>
          {revokeError && (
            <p class="error" role="alert">
              {revokeError}
            </p>
          )}
        </ConfirmDialog>
      )}
    </section>
  );
}
