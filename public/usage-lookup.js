// The key usage page: the key goes only to this origin's /v1/key/usage, lives in the input only
// (no storage, no URL), and every value is inserted as text, never as markup.
(() => {
  const $ = (id) => document.getElementById(id);
  const usd = (micro) => (micro == null ? '—' : '$' + (micro / 1e6).toFixed(6));
  const el = (tag, text, cls) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  };

  function table(head, rows, numeric = []) {
    const t = el('table');
    if (head) {
      const tr = el('tr');
      head.forEach((h, i) => {
        tr.append(el('th', h, numeric[i] ? 'n' : undefined));
      });
      t.append(tr);
    }
    for (const cells of rows) {
      const tr = el('tr');
      cells.forEach((c, i) => {
        tr.append(el('td', c, numeric[i] ? 'n' : undefined));
      });
      t.append(tr);
    }
    return t;
  }

  /** Bars of each model's charge over the 30 days (requests in the label). */
  function chart(models) {
    const ns = 'http://www.w3.org/2000/svg';
    const width = 880,
      bar = 22,
      gap = 8,
      label = 220;
    const max = Math.max(1, ...models.map((m) => m.charged_micro_usd));
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('width', String(width));
    svg.setAttribute('height', String(Math.max(1, models.length) * (bar + gap)));
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', 'Charged per model over the last 30 days');
    models.forEach((m, i) => {
      const y = i * (bar + gap);
      const name = document.createElementNS(ns, 'text');
      name.setAttribute('x', '0');
      name.setAttribute('y', String(y + 15));
      name.textContent = `${m.model} (${m.requests} requests)`;
      const rect = document.createElementNS(ns, 'rect');
      rect.setAttribute('x', String(label));
      rect.setAttribute('y', String(y));
      rect.setAttribute('height', String(bar));
      rect.setAttribute('width', String(Math.max(1, ((width - label - 110) * m.charged_micro_usd) / max)));
      const value = document.createElementNS(ns, 'text');
      value.setAttribute('x', String(width - 105));
      value.setAttribute('y', String(y + 15));
      value.textContent = usd(m.charged_micro_usd);
      svg.append(name, rect, value);
    });
    return svg;
  }

  function failure(res, body) {
    if (res.status === 401) return 'This key is invalid, revoked or expired.';
    if (res.status === 403) return 'This key is disabled.';
    if (res.status === 429) {
      const wait = res.headers.get('retry-after');
      return `Too many lookups right now. Try again in ${wait || 'a few'} seconds.`;
    }
    return (body && body.error && body.error.message) || `The lookup failed (status ${res.status}).`;
  }

  const PER = { day: 'day (UTC)', week: 'ISO week (UTC, from Monday)', month: 'month (UTC)', total: 'in total' };

  /** The key's budget: its limit over the current period, what is used and left, the soft threshold. */
  function budget(b) {
    if (!b) return el('p', 'No budget is set.', 'muted');
    return table(null, [
      ['Limit', `${usd(b.limit_micro_usd)} per ${PER[b.period] || b.period}`],
      ['Period', b.period_start ? `${b.period_start} to ${b.period_end}` : 'all time (never starts again)'],
      ['Used', usd(b.used_micro_usd)],
      ['Remaining', usd(b.remaining_micro_usd)],
      [
        'Soft threshold',
        b.soft_threshold_percent == null
          ? 'none'
          : `${b.soft_threshold_percent}% (${usd(b.soft_threshold_micro_usd)}), mailed once per period`,
      ],
    ]);
  }

  function render(body) {
    const out = $('result');
    const k = body.key,
      q = body.quota,
      l = body.limits,
      d = body.last_30_days;
    out.replaceChildren(
      el('h2', 'Key'),
      table(null, [
        ['Name', k.name || '—'],
        ['Key', `${k.prefix}…${k.last4}`],
        ['Status', k.status],
        ['Expires', k.expires_at || 'never'],
        ['Created', k.created_at],
      ]),
      el('h2', 'Quota'),
      table(
        ['Period', 'Cap', 'Used', 'Remaining'],
        ['total', 'daily', 'monthly'].map((p) => [
          p,
          usd(q[`${p}_micro_usd`]),
          usd(q[`used_${p}_micro_usd`]),
          usd(q[`remaining_${p}_micro_usd`]),
        ]),
        [false, true, true, true],
      ),
      el('h2', 'Budget'),
      budget(body.budget),
      el('h2', 'Limits'),
      table(null, [
        ['Requests per minute', l.rpm_limit ?? 'none'],
        ['Tokens per minute', l.tpm_limit ?? 'none'],
        ['Concurrent calls', l.concurrency_limit ?? 'none'],
        [
          'Response cache',
          body.cache_ttl_seconds ? `${body.cache_ttl_seconds} s` : 'off unless a preset or the request sets it',
        ],
      ]),
      el('h2', 'Last 30 days'),
      chart(d.models),
      table(
        ['Model', 'Requests', 'Errors', 'Input', 'Output', 'Cached', 'Charged'],
        [
          ...d.models.map((m) => [
            m.model,
            m.requests,
            m.errors,
            m.input_tokens,
            m.output_tokens,
            m.cached_tokens,
            usd(m.charged_micro_usd),
          ]),
          [
            'Total',
            d.total.requests,
            d.total.errors,
            d.total.input_tokens,
            d.total.output_tokens,
            d.total.cached_tokens,
            usd(d.total.charged_micro_usd),
          ],
        ],
        [false, true, true, true, true, true, true],
      ),
      el('h2', 'Recent calls'),
      table(
        ['Time', 'Request', 'Model', 'Status', 'Input', 'Output', 'Charged'],
        body.recent.map((r) => [
          r.created_at,
          r.request_id,
          r.model,
          r.status_code,
          r.input_tokens,
          r.output_tokens,
          usd(r.charged_micro_usd),
        ]),
        [false, false, false, true, true, true, true],
      ),
    );
  }

  document.addEventListener('DOMContentLoaded', () => {
    const status = $('status');
    $('lookup').addEventListener('submit', async (e) => {
      e.preventDefault();
      status.className = '';
      status.textContent = 'Looking up…';
      $('result').replaceChildren();
      let res;
      try {
        res = await fetch('/v1/key/usage', {
          headers: { Authorization: 'Bearer ' + $('key').value.trim() },
          cache: 'no-store',
          credentials: 'omit',
          referrerPolicy: 'no-referrer',
        });
      } catch {
        status.className = 'error';
        status.textContent = 'The gateway could not be reached.';
        return;
      }
      const body = await res.json().catch(() => undefined);
      if (!res.ok || !body) {
        status.className = 'error';
        status.textContent = failure(res, body);
        return;
      }
      status.textContent = 'Usage of this key:';
      render(body);
    });
    $('clear').addEventListener('click', () => {
      $('key').value = '';
      $('result').replaceChildren();
      status.className = '';
      status.textContent = '';
      $('key').focus();
    });
  });
})();
