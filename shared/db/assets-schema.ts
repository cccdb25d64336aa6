import type { ColumnType, Selectable } from 'kysely';

// The asset tables (migrations 0014 and 0021; shared/assets): uploads, assets, fetched images.
type Money = ColumnType<number, number | bigint, number | bigint>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export interface AssetUploadsTable {
  id: string;
  user_id: string;
  api_key_id: string | null;
  filename: string;
  content_type: string;
  size_bytes: Money;
  sha256: string | null;
  object_key: string;
  expires_at: Timestamp;
  asset_id: string | null;
  created_at: CreatedAt;
}

export interface AssetsTable {
  id: string;
  user_id: string;
  api_key_id: string | null;
  upload_id: string;
  filename: string;
  content_type: string;
  size_bytes: Money;
  width: number;
  height: number;
  sha256: string;
  object_key: string;
  created_at: CreatedAt;
}

/** An image the gateway fetched and keeps behind signed links until `expires_at` (migrations/0021_fetched_objects.sql). */
export interface FetchedObjectsTable {
  object_key: string;
  user_id: string;
  expires_at: Timestamp;
  created_at: CreatedAt;
}

export interface AssetTables {
  asset_uploads: AssetUploadsTable;
  assets: AssetsTable;
  fetched_objects: FetchedObjectsTable;
}

export type AssetRow = Selectable<AssetsTable>;
export type AssetUploadRow = Selectable<AssetUploadsTable>;
