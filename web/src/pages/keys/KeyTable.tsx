import type { Key } from '../../api/models';
import { useConsole } from '../../context';
import { formatDateTime, formatMoney } from '../../format';
import { TableFrame } from '../../components/TableFrame';

interface KeyTableProps {
  keys: Key[];
  /** A status change is under way: Enable waits for it. */
  busy: boolean;
  onEdit(key: Key): void;
  onEnable(key: Key): void;
  /** Disabling and revoking are confirmed by the page first. */
  onDisable(key: Key): void;
  onRevoke(key: Key): void;
}

/** The keys as a table: name, the key's prefix and last four, status, group, caps, dates, and each row's actions. */
export function KeyTable({ keys, busy, onEdit, onEnable, onDisable, onRevoke }: KeyTableProps) {
  const { locale } = useConsole();
  return (
    <TableFrame label="API keys">
      <table>
        <caption class="sr-only">Your API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Status</th>
            <th scope="col">Group</th>
            <th scope="col">Caps</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <th scope="row">{key.name || <span class="muted">(unnamed)</span>}</th>
              <td>
                <code>
                  {key.prefix}…{key.last4}
                </code>
              </td>
              <td>
                <span class={`badge ${key.status}`}>{key.status}</span>
              </td>
              <td>{key.group}</td>
              <td>{caps(key, locale)}</td>
              <td>{formatDateTime(key.created_at, locale)}</td>
              <td>{key.expires_at ? formatDateTime(key.expires_at, locale) : <span class="muted">never</span>}</td>
              <td class="row-actions">
                {key.status !== 'revoked' && (
                  <>
                    <button type="button" aria-label={`Edit ${key.name || key.prefix}`} onClick={() => onEdit(key)}>
                      Edit
                    </button>
                    {key.status === 'disabled' ? (
                      <button
                        type="button"
                        aria-label={`Enable ${key.name || key.prefix}`}
                        disabled={busy}
                        onClick={() => onEnable(key)}
                      >
                        Enable
                      </button>
                    ) : (
                      <button
                        type="button"
                        aria-label={`Disable ${key.name || key.prefix}`}
                        onClick={() => onDisable(key)}
                      >
                        Disable
                      </button>
                    )}
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Revoke ${key.name || key.prefix}`}
                      onClick={() => onRevoke(key)}
                    >
                      Revoke
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

const BUDGET_PER: Record<NonNullable<Key['budget']>['period'], string> = {
  day: '/day',
  week: '/week',
  month: '/month',
  total: ' in total',
};

function caps(key: Key, locale: string): string {
  const parts = [
    key.total_micro_usd !== null && `total ${formatMoney(key.total_micro_usd, locale)}`,
    key.daily_micro_usd !== null && `${formatMoney(key.daily_micro_usd, locale)}/day`,
    key.monthly_micro_usd !== null && `${formatMoney(key.monthly_micro_usd, locale)}/month`,
    key.budget && `budget ${formatMoney(key.budget.limit_micro_usd, locale)}${BUDGET_PER[key.budget.period]}`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : '—';
}
