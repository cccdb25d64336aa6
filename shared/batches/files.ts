import type { FileRow } from '../db/batches-schema.js';
import { randomBase62 } from '../ids.js';

export function newFileId(): string {
  return `file-${randomBase62(24)}`;
}

/** Where a file's bytes are: under its account, so a listing of the bucket shows whose they are. */
export function fileObjectKey(userId: string, fileId: string): string {
  return `files/${userId}/${fileId}.jsonl`;
}

/** OpenAI's file object. */
export function fileObject(row: FileRow) {
  return {
    id: row.id,
    object: 'file' as const,
    bytes: row.bytes,
    created_at: Math.floor(row.created_at.getTime() / 1000),
    filename: row.filename,
    purpose: row.purpose,
    status: 'processed' as const,
    expires_at: null,
    status_details: null,
  };
}
