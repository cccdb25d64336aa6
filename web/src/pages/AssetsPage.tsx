import { useEffect, useState } from 'preact/hooks';
import { unwrap } from '../api/client';
import type { Page } from '../api/models';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Pager } from '../components/Pager';
import { Empty, LoadError, Loading } from '../components/States';
import { messageOf, useLoad } from '../components/use-load';
import { useConsole } from '../context';
import { formatDateTime, formatNumber } from '../format';
import { ASSET_TYPES, uploadAsset } from './assets/upload';

const PAGE_SIZE = 24;

interface Asset {
  id: string;
  reference: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  width: number | null;
  height: number | null;
  created_at: string;
}

/** Assets: upload images (with progress) for `asset://` references, see them as thumbnails, delete them. */
export function AssetsPage() {
  const { api, locale } = useConsole();
  const [page, setPage] = useState(1);
  const assets = useLoad(
    () =>
      unwrap<Page<Asset>>(
        api.GET('/api/v1/assets', { params: { query: { page: String(page), page_size: String(PAGE_SIZE) } } }),
      ),
    [page],
  );
  const [progress, setProgress] = useState<{ name: string; fraction: number } | null>(null);
  const [error, setError] = useState<string>();
  const [deleting, setDeleting] = useState<Asset | null>(null);

  async function upload(files: FileList | null) {
    setError(undefined);
    for (const file of Array.from(files ?? [])) {
      if (!(ASSET_TYPES as readonly string[]).includes(file.type)) {
        setError(`${file.name}: only JPEG, PNG and WebP images can be uploaded.`);
        continue;
      }
      try {
        setProgress({ name: file.name, fraction: 0 });
        await uploadAsset(api, file, (fraction) => setProgress({ name: file.name, fraction }));
      } catch (err) {
        setError(`${file.name}: ${messageOf(err)}`);
      }
    }
    setProgress(null);
    assets.reload();
  }
  async function remove(asset: Asset) {
    try {
      await unwrap(api.DELETE('/api/v1/assets/{id}', { params: { path: { id: asset.id } } }));
      setDeleting(null);
      assets.reload();
    } catch (err) {
      setError(messageOf(err));
      setDeleting(null);
    }
  }

  return (
    <section aria-labelledby="assets-title">
      <h1 id="assets-title">Assets</h1>
      <div class="card">
        <label for="asset-file">
          <strong>Upload images</strong>
        </label>
        <p class="hint" id="asset-hint">
          JPEG, PNG or WebP. Reference an upload in requests as <code>asset://&lt;id&gt;</code>.
        </p>
        <input
          id="asset-file"
          type="file"
          accept={ASSET_TYPES.join(',')}
          multiple
          aria-describedby="asset-hint"
          disabled={progress !== null}
          onChange={(e) => void upload(e.currentTarget.files)}
        />
        {progress && (
          <p>
            <label for="asset-progress">Uploading {progress.name}</label>{' '}
            <progress id="asset-progress" max={1} value={progress.fraction}>
              {Math.round(progress.fraction * 100)} %
            </progress>
          </p>
        )}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </div>
      {assets.state === 'loading' && <Loading what="assets" />}
      {assets.state === 'error' && <LoadError error={assets.error} retry={assets.reload} />}
      {assets.state === 'ready' && assets.value.list.length === 0 && <Empty>No assets yet.</Empty>}
      {assets.state === 'ready' && assets.value.list.length > 0 && (
        <ul class="plain thumbs">
          {assets.value.list.map((a) => (
            <li key={a.id}>
              <Thumbnail asset={a} />
              <div>
                <strong>{a.filename}</strong>
                <div class="muted">
                  {a.width && a.height ? `${a.width}×${a.height} · ` : ''}
                  {formatNumber(Math.ceil(a.size_bytes / 1024), locale)} KB · {formatDateTime(a.created_at, locale)}
                </div>
                <code>{a.reference}</code>
              </div>
              <button type="button" class="danger" aria-label={`Delete ${a.filename}`} onClick={() => setDeleting(a)}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      {assets.state === 'ready' && (
        <Pager page={page} total={assets.value.total} pageSize={PAGE_SIZE} onPage={setPage} />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.filename}?`}
          confirm="Delete"
          onConfirm={() => void remove(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>Requests that reference {deleting.reference} will fail.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** The image itself, through a short-lived link the API signs for this account. */
function Thumbnail({ asset }: { asset: Asset }) {
  const { api } = useConsole();
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    unwrap<{ url: string }>(api.GET('/api/v1/assets/{id}/content', { params: { path: { id: asset.id } } })).then(
      (link) => setUrl(link.url),
      () => setUrl(undefined),
    );
  }, [asset.id]);
  return url ? (
    <img class="thumb" src={url} alt={asset.filename} loading="lazy" />
  ) : (
    <div class="thumb" aria-hidden="true" />
  );
}
