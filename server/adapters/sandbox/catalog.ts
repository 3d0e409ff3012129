/** Loads the sandbox catalogue data file (catalog.json beside this module) and validates it. */
import fs from 'node:fs';
import { validateCatalog, type Catalog } from '../../domain/catalog.js';

/** Reads and validates the catalogue; throws with every problem listed when the data is wrong. */
export function loadSandboxCatalog(file = new URL('./catalog.json', import.meta.url)): Catalog {
  return validateCatalog(JSON.parse(fs.readFileSync(file, 'utf8')));
}
