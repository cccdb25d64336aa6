import type { ColumnType, Selectable } from 'kysely';
import type { TraceContextColumn } from './schema.js';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Counter = ColumnType<number, number | undefined, number>;

export type FilePurpose = 'batch' | 'batch_output';
export type BatchApi = 'openai' | 'anthropic';
export type BatchStatus =
  | 'validating'
  | 'failed'
  | 'in_progress'
  | 'finalizing'
  | 'completed'
  | 'expired'
  | 'cancelling'
  | 'cancelled';
export type BatchLineStatus = 'pending' | 'succeeded' | 'failed';

export interface FilesTable {
  id: string;
  user_id: string;
  purpose: FilePurpose;
  filename: string;
  bytes: number;
  lines: number;
  object_key: string;
  created_at: CreatedAt;
}

/** A refusal of the validation: the line it names (1-based), when it is about one. */
export interface BatchValidationError {
  code: string;
  message: string;
  param: string | null;
  line: number | null;
}

export interface BatchesTable {
  id: string;
  user_id: string;
  api_key_id: string | null;
  api: BatchApi;
  endpoint: string;
  input_file_id: string | null;
  completion_window: ColumnType<string, string | undefined, string>;
  status: BatchStatus;
  errors: ColumnType<BatchValidationError[] | null, string | null | undefined, string | null>;
  metadata: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  output_file_id: string | null;
  error_file_id: string | null;
  total: Counter;
  completed: Counter;
  failed: Counter;
  input_tokens: Counter;
  output_tokens: Counter;
  cached_tokens: Counter;
  created_at: Timestamp;
  expires_at: Timestamp;
  in_progress_at: Timestamp | null;
  finalizing_at: Timestamp | null;
  completed_at: Timestamp | null;
  failed_at: Timestamp | null;
  expired_at: Timestamp | null;
  cancelling_at: Timestamp | null;
  cancelled_at: Timestamp | null;
  trace_context: TraceContextColumn;
}

export interface BatchLinesTable {
  batch_id: string;
  line: number;
  custom_id: string;
  body: ColumnType<Record<string, unknown>, string, string>;
  status: ColumnType<BatchLineStatus, BatchLineStatus | undefined, BatchLineStatus>;
  request_id: string | null;
  status_code: number | null;
  response: ColumnType<unknown, string | null | undefined, string | null>;
  input_tokens: Counter;
  output_tokens: Counter;
  cached_tokens: Counter;
  finished_at: Timestamp | null;
}

/** The batch tables (migrations/0026_batches.sql), merged into the Database interface. */
export interface BatchTables {
  files: FilesTable;
  batches: BatchesTable;
  batch_lines: BatchLinesTable;
}

export type FileRow = Selectable<FilesTable>;
export type BatchRow = Selectable<BatchesTable>;
export type BatchLineRow = Selectable<BatchLinesTable>;
