import { useState } from 'preact/hooks';
import { unwrap } from '../api/client';
import type { LedgerEntry, Page } from '../api/models';
import { Empty, LoadError, Loading } from '../components/States';
import { useLoad } from '../components/use-load';
import { useConsole } from '../context';
import { formatDateTime, formatMoney } from '../format';
import { Pager } from '../components/Pager';
import { TableFrame } from '../components/TableFrame';

const PAGE_SIZE = 50;

/** Ledger: every credit and charge of the account, newest first, with the balance after each. */
export function LedgerPage() {
  const { api, locale } = useConsole();
  const [page, setPage] = useState(1);
  const ledger = useLoad(
    () =>
      unwrap<Page<LedgerEntry>>(
        api.GET('/api/v1/ledger', { params: { query: { page: String(page), page_size: String(PAGE_SIZE) } } }),
      ),
    [page],
  );
  return (
    <section aria-labelledby="ledger-title">
      <h1 id="ledger-title">Ledger</h1>
      {ledger.state === 'loading' && <Loading what="the ledger" />}
      {ledger.state === 'error' && <LoadError error={ledger.error} retry={ledger.reload} />}
      {ledger.state === 'ready' && ledger.value.total === 0 && <Empty>No credits or charges yet.</Empty>}
      {ledger.state === 'ready' && ledger.value.list.length > 0 && (
        <>
          <TableFrame label="Credits and charges">
            <table>
              <caption class="sr-only">Credits and charges, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Kind</th>
                  <th scope="col" class="num">
                    Amount
                  </th>
                  <th scope="col" class="num">
                    Balance after
                  </th>
                  <th scope="col">Note</th>
                  <th scope="col">Request id</th>
                </tr>
              </thead>
              <tbody>
                {ledger.value.list.map((e) => (
                  <tr key={e.id}>
                    <td>{formatDateTime(e.created_at, locale)}</td>
                    <td>{e.kind}</td>
                    <td class="num">{formatMoney(e.amount_micro_usd, locale)}</td>
                    <td class="num">{formatMoney(e.balance_after_micro_usd, locale)}</td>
                    <td>{e.note ?? ''}</td>
                    <td>{e.request_id ? <code>{e.request_id}</code> : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
          <Pager page={page} total={ledger.value.total} pageSize={PAGE_SIZE} onPage={setPage} />
        </>
      )}
    </section>
  );
}
