import type { ColumnType, Generated, Selectable } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

export type PresetStrategy = 'ordered' | 'cost' | 'latency' | 'weighted';

export interface PreferredProviders {
  order?: string[];
  only?: string[];
}

export interface RoutingPresetsTable {
  id: Generated<string>;
  user_id: string;
  slug: string;
  models: string[];
  strategy: ColumnType<PresetStrategy, PresetStrategy | undefined, PresetStrategy>;
  weights: number[] | null;
  preferred_providers: ColumnType<PreferredProviders | null, string | null | undefined, string | null>;
  /** Seconds an answer through this preset stays in the response cache (migrations/0027); null = not set. */
  cache_ttl_seconds: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface PromptTemplatesTable {
  id: Generated<string>;
  user_id: string;
  name: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface PromptTemplateVersionsTable {
  id: Generated<string>;
  template_id: string;
  label: string;
  text: string;
  weight: ColumnType<number, number | undefined, number>;
  created_at: CreatedAt;
}

export interface PromptTemplateBindingsTable {
  api_key_id: string;
  template_id: string;
}

/** The routing tables (migration 0011), merged into the Database interface. */
export interface RoutingTables {
  routing_presets: RoutingPresetsTable;
  prompt_templates: PromptTemplatesTable;
  prompt_template_versions: PromptTemplateVersionsTable;
  prompt_template_bindings: PromptTemplateBindingsTable;
}

export type PresetRow = Selectable<RoutingPresetsTable>;
export type PromptTemplateRow = Selectable<PromptTemplatesTable>;
export type PromptTemplateVersionRow = Selectable<PromptTemplateVersionsTable>;
