import { readFile } from 'node:fs/promises';
import YAML from 'yaml';
import {
  catalogSchema,
  type CatalogFile,
  type CatalogGroup,
  type CatalogModel,
  type CatalogProvider,
  type Endpoint,
} from './schema.js';

export type { CatalogGroup, CatalogModel, CatalogProvider, Endpoint };

/** A group as the hot path uses it: allowed models, shared limits, discount. */
export interface Group {
  readonly id: string;
  /** Allowed model ids, or '*' for every model. */
  readonly models: ReadonlySet<string> | '*';
  readonly limits: { readonly rpm: number | null; readonly tpm: number | null; readonly concurrency: number | null };
  readonly discountPercent: number;
  /** Offered to every user in the console (`self_service: true`); else (absent too) the operator assigns it. */
  readonly selfService?: boolean;
}

export class CatalogError extends Error {}

/** The validated catalog, indexed for the hot path. */
export interface Catalog {
  readonly providers: ReadonlyMap<string, CatalogProvider>;
  readonly models: ReadonlyMap<string, CatalogModel>;
  readonly groups: ReadonlyMap<string, Group>;
}

export async function loadCatalogFile(file: string, env: NodeJS.ProcessEnv = process.env): Promise<Catalog> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CatalogError(`cannot read catalog ${file}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (err) {
    throw new CatalogError(`catalog ${file} is not valid YAML: ${(err as Error).message}`);
  }
  return buildCatalog(doc, env, file);
}

export function buildCatalog(doc: unknown, env: NodeJS.ProcessEnv = process.env, source = 'catalog'): Catalog {
  const parsed = catalogSchema.safeParse(doc);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${formatPath(i.path)}: ${i.message}`);
    throw new CatalogError(`invalid ${source}:\n${lines.join('\n')}`);
  }
  return index(resolveSecrets(parsed.data, env));
}

function resolveSecrets(c: CatalogFile, env: NodeJS.ProcessEnv): CatalogFile {
  const secret = (value: string, where: string) => {
    if (!value.startsWith('env:')) return value;
    const resolved = env[value.slice(4)];
    if (resolved === undefined)
      throw new CatalogError(`invalid catalog:\n  ${where}: environment variable ${value.slice(4)} is not set`);
    return resolved;
  };
  const providers = c.providers.map((p, i) => ({
    ...p,
    api_key: secret(p.api_key, `providers[${i}].api_key`),
    ...(p.accounts && {
      accounts: p.accounts.map((a, j) => ({
        ...a,
        api_key: secret(a.api_key, `providers[${i}].accounts[${j}].api_key`),
      })),
    }),
  }));
  return { ...c, providers };
}

function index(c: CatalogFile): Catalog {
  const groups = new Map<string, Group>();
  for (const g of c.groups ?? []) groups.set(g.id, toGroup(g));
  if (!groups.has('default')) {
    groups.set('default', {
      id: 'default',
      models: '*',
      limits: { rpm: null, tpm: null, concurrency: null },
      discountPercent: 0,
      selfService: true,
    });
  }
  return {
    providers: new Map(c.providers.map((p) => [p.id, p])),
    models: new Map(c.models.map((m) => [m.id, m])),
    groups,
  };
}

function toGroup(g: CatalogGroup): Group {
  return {
    id: g.id,
    models: g.models.includes('*') ? '*' : new Set(g.models),
    limits: { rpm: g.rpm_limit, tpm: g.tpm_limit, concurrency: g.concurrency_limit },
    discountPercent: g.discount_percent,
    selfService: g.self_service,
  };
}

export function groupAllows(catalog: Catalog, groupId: string, modelId: string): boolean {
  const allowed = catalog.groups.get(groupId)?.models;
  return allowed === '*' || (allowed !== undefined && allowed.has(modelId));
}

function formatPath(path: PropertyKey[]): string {
  return (
    path.reduce<string>(
      (acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)),
      '',
    ) || '(root)'
  );
}
