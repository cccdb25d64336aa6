import { useState } from 'preact/hooks';
import { unwrap } from '../api/client';
import type { Key, Page } from '../api/models';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Empty, LoadError, Loading } from '../components/States';
import { messageOf, useLoad } from '../components/use-load';
import { useConsole } from '../context';
import { PresetForm, type PresetView } from './routing/PresetForm';
import { TemplateForm, type TemplateView } from './routing/TemplateForm';

type Editing = { kind: 'preset'; preset?: PresetView } | { kind: 'template'; template?: TemplateView } | null;
type Deleting = { kind: 'preset'; id: string; name: string } | { kind: 'template'; id: string; name: string } | null;

/** Routing: presets (@preset/<slug>) and prompt templates with their versions, weights and variables. */
export function RoutingPage() {
  const { api } = useConsole();
  const all = { params: { query: { page: '1', page_size: '100' } } };
  const data = useLoad(
    () =>
      Promise.all([
        unwrap<Page<PresetView>>(api.GET('/api/v1/presets', all)),
        unwrap<Page<TemplateView>>(api.GET('/api/v1/prompt-templates', all)),
        unwrap<Page<Key>>(api.GET('/api/v1/keys', all)),
      ]),
    [],
  );
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<Deleting>(null);
  const [deleteError, setDeleteError] = useState<string>();

  async function remove(target: NonNullable<Deleting>) {
    setDeleteError(undefined);
    try {
      if (target.kind === 'preset')
        await unwrap(api.DELETE('/api/v1/presets/{slug}', { params: { path: { slug: target.id } } }));
      else await unwrap(api.DELETE('/api/v1/prompt-templates/{id}', { params: { path: { id: target.id } } }));
      setDeleting(null);
      data.reload();
    } catch (err) {
      setDeleteError(messageOf(err));
    }
  }
  const done = () => {
    setEditing(null);
    data.reload();
  };

  if (data.state === 'loading') return <Loading what="presets and templates" />;
  if (data.state === 'error') return <LoadError error={data.error} retry={data.reload} />;
  const [presets, templates, keys] = data.value;
  const activeKeys = keys.list.filter((k) => k.status !== 'revoked');
  return (
    <section aria-labelledby="routing-title">
      <h1 id="routing-title">Routing</h1>
      <div class="page-head">
        <h2>Presets</h2>
        {!editing && (
          <button type="button" onClick={() => setEditing({ kind: 'preset' })}>
            New preset
          </button>
        )}
      </div>
      {editing?.kind === 'preset' && (
        <PresetForm
          editing={editing.preset}
          onCancel={() => setEditing(null)}
          onSubmit={async (body) => {
            if (editing.preset) {
              const { slug: _, ...changes } = body;
              await unwrap(
                api.PATCH('/api/v1/presets/{slug}', { params: { path: { slug: editing.preset.slug } }, body: changes }),
              );
            } else await unwrap(api.POST('/api/v1/presets', { body }));
            done();
          }}
        />
      )}
      {presets.list.length === 0 ? (
        <Empty>No presets. A preset is an ordered list of models called as one: @preset/&lt;slug&gt;.</Empty>
      ) : (
        <ul class="plain sessions">
          {presets.list.map((p) => (
            <li key={p.slug}>
              <div>
                <code>{p.model}</code> — {p.strategy}: {p.models.join(' → ')}
                {p.weights && <span class="muted"> (weights {p.weights.join(', ')})</span>}
              </div>
              <div class="row-actions">
                <button
                  type="button"
                  aria-label={`Edit preset ${p.slug}`}
                  onClick={() => setEditing({ kind: 'preset', preset: p })}
                >
                  Edit
                </button>{' '}
                <button
                  type="button"
                  class="danger"
                  aria-label={`Delete preset ${p.slug}`}
                  onClick={() => setDeleting({ kind: 'preset', id: p.slug, name: p.model })}
                >
                  Delete
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}

      <div class="page-head">
        <h2>Prompt templates</h2>
        {!editing && (
          <button type="button" onClick={() => setEditing({ kind: 'template' })}>
            New template
          </button>
        )}
      </div>
      {editing?.kind === 'template' && (
        <TemplateForm
          editing={editing.template}
          keys={activeKeys}
          onCancel={() => setEditing(null)}
          onSubmit={async (body) => {
            if (editing.template)
              await unwrap(
                api.PATCH('/api/v1/prompt-templates/{id}', { params: { path: { id: editing.template.id } }, body }),
              );
            else await unwrap(api.POST('/api/v1/prompt-templates', { body }));
            done();
          }}
        />
      )}
      {templates.list.length === 0 ? (
        <Empty>
          No prompt templates. A template is put in front of the system prompt of every request made with the keys it is
          bound to.
        </Empty>
      ) : (
        <ul class="plain sessions">
          {templates.list.map((t) => (
            <li key={t.id}>
              <div>
                <strong>{t.name}</strong> — {t.versions.map((v) => `${v.label} (weight ${v.weight})`).join(', ')}
                <div class="muted">
                  {t.key_ids.length} key{t.key_ids.length === 1 ? '' : 's'}
                  {t.versions.some((v) => v.variables.length) &&
                    ` · variables: ${[...new Set(t.versions.flatMap((v) => v.variables))].join(', ')}`}
                </div>
              </div>
              <div class="row-actions">
                <button
                  type="button"
                  aria-label={`Edit template ${t.name}`}
                  onClick={() => setEditing({ kind: 'template', template: t })}
                >
                  Edit
                </button>{' '}
                <button
                  type="button"
                  class="danger"
                  aria-label={`Delete template ${t.name}`}
                  onClick={() => setDeleting({ kind: 'template', id: t.id, name: t.name })}
                >
                  Delete
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          confirm="Delete"
          onConfirm={() => void remove(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>
            {deleting.kind === 'preset' ? 'Requests naming this preset will fail.' : 'Its keys stop using it at once.'}
          </p>
          {deleteError && (
            <p class="error" role="alert">
              {deleteError}
            </p>
          )}
        </ConfirmDialog>
      )}
    </section>
  );
}
