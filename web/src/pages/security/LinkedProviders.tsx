import { useState } from 'preact/hooks';
import { unwrap } from '../../api/client';
import { Empty, LoadError, Loading } from '../../components/States';
import { useLoad } from '../../components/use-load';
import { useConsole } from '../../context';
import { formatDateTime } from '../../format';
import { newHandoff } from '../../api/oauth-handoff';
import { ConfirmedAction } from './ConfirmedAction';

interface Identity {
  provider: string;
  email: string | null;
  linked_at: string;
}

/** Sign-in providers: linked ones (unlink), configured ones not linked yet (link: off to the provider). */
export function LinkedProviders() {
  const { api, config, locale } = useConsole();
  // A provider returns the browser to the API's origin, whose cookie a site on another site never
  // sees: there the link is handed over to this tab's verifier (api/oauth-handoff.ts).
  const handoff = config.session === 'bearer';
  const data = useLoad(
    () =>
      Promise.all([
        unwrap<Identity[]>(api.GET('/api/v1/auth/identities')),
        unwrap<{ name: string; display_name: string }[]>(api.GET('/api/v1/auth/oauth/providers')),
      ]),
    [],
  );
  const [pending, setPending] = useState<{ action: 'link' | 'unlink'; provider: string } | null>(null);
  if (data.state === 'loading') return <Loading what="sign-in providers" />;
  if (data.state === 'error') return <LoadError error={data.error} retry={data.reload} />;
  const [identities, providers] = data.value;
  if (providers.length === 0 && identities.length === 0) {
    return (
      <div>
        <h2>Sign-in providers</h2>
        <Empty>This gateway offers no sign-in providers.</Empty>
      </div>
    );
  }
  const name = (provider: string) => providers.find((p) => p.name === provider)?.display_name ?? provider;
  return (
    <div>
      <h2>Sign-in providers</h2>
      {identities.length === 0 && <Empty>No provider linked.</Empty>}
      <ul class="plain sessions">
        {identities.map((i) => (
          <li key={i.provider}>
            <div>
              <strong>{name(i.provider)}</strong>
              <div class="muted">
                {i.email ?? ''} · linked {formatDateTime(i.linked_at, locale)}
              </div>
            </div>
            <button type="button" class="danger" onClick={() => setPending({ action: 'unlink', provider: i.provider })}>
              Unlink {name(i.provider)}
            </button>
          </li>
        ))}
        {providers
          .filter((p) => !identities.some((i) => i.provider === p.name))
          .map((p) => (
            <li key={p.name}>
              <strong>{p.display_name}</strong>
              <button type="button" onClick={() => setPending({ action: 'link', provider: p.name })}>
                Link {p.display_name}
              </button>
            </li>
          ))}
      </ul>
      {pending && (
        <ConfirmedAction
          action={pending.action === 'link' ? 'link_provider' : 'unlink_provider'}
          label={`${pending.action === 'link' ? 'Link' : 'Unlink'} ${name(pending.provider)}`}
          submit={pending.action === 'link' ? `Continue to ${name(pending.provider)}` : 'Unlink'}
          danger={pending.action === 'unlink'}
          onCancel={() => setPending(null)}
          run={async (confirm) => {
            if (pending.action === 'link') {
              const { url } = await unwrap<{ url: string }>(
                api.POST('/api/v1/auth/oauth/{provider}/link', {
                  params: { path: { provider: pending.provider } },
                  body: handoff ? { ...confirm, handoff: await newHandoff() } : confirm,
                }),
              );
              window.location.assign(url);
            } else {
              await unwrap(
                api.POST('/api/v1/auth/identities/{provider}/unlink', {
                  params: { path: { provider: pending.provider } },
                  body: confirm,
                }),
              );
              setPending(null);
              data.reload();
            }
          }}
        />
      )}
    </div>
  );
}
