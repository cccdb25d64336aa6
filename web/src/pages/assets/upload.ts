import { unwrap, type Api } from '../../api/client';

interface Reserved {
  upload_id: string;
  upload_url: string;
  method: string;
  headers: Record<string, string>;
}

export const ASSET_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;

/**
 * An asset upload's three steps: reserve, PUT the bytes to the storage URL (XMLHttpRequest, the
 * one browser API that reports upload progress), confirm with `complete`.
 */
export async function uploadAsset(api: Api, file: File, onProgress: (fraction: number) => void): Promise<void> {
  const contentType = file.type as (typeof ASSET_TYPES)[number];
  const reserved = await unwrap<Reserved>(
    api.POST('/api/v1/assets', { body: { filename: file.name, content_type: contentType, size_bytes: file.size } }),
  );
  await new Promise<void>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(reserved.method, reserved.upload_url);
    for (const [name, value] of Object.entries(reserved.headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () =>
      xhr.status >= 200 && xhr.status < 300 ? resolve() : reject(new Error(`The upload was refused (${xhr.status}).`));
    xhr.onerror = () => reject(new Error('The upload failed: check your connection and try again.'));
    xhr.send(file);
  });
  onProgress(1);
  await unwrap(
    api.POST('/api/v1/assets/uploads/{uploadId}/complete', { params: { path: { uploadId: reserved.upload_id } } }),
  );
}
