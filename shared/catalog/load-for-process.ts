import type { Config } from '../config.js';
import { CatalogError, loadCatalogFile, type Catalog } from './index.js';

/** Loads CATALOG_FILE; a bad catalog stops the process with every problem named by its field path. */
export async function loadCatalogOrExit(config: Config): Promise<Catalog> {
  if (!config.catalog.file) {
    process.stderr.write(
      'CATALOG_FILE is not set: name the model catalog (docs/reference/catalog.md); `npm start` without it runs the demo\n',
    );
    process.exit(1);
  }
  try {
    return await loadCatalogFile(config.catalog.file);
  } catch (err) {
    if (err instanceof CatalogError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
