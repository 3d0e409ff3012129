/** The bundled API document (generated/openapi.json), which the server validates against and serves. */
import fs from 'node:fs';

/** Reads the bundled document and its version label (info.version). */
export function loadApiDocument(file = new URL('../generated/openapi.json', import.meta.url)): {
  document: Record<string, unknown>;
  version: string;
} {
  const document = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown> & { info: { version: string } };
  return { document, version: document.info.version };
}
