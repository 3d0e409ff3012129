/**
 * Generates everything derived from the spec: the bundled generated/openapi.json, the server's types
 * (generated/api.d.ts) and the SDK's copies (sdk/src/generated/), among them the SDK's API_VERSION (the
 * spec's info.version, the one place the version label is written). With --check, writes nothing and exits 1
 * when any generated file differs from what the spec produces now (CI's drift check).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { parse } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const specFile = path.join(root, 'spec/openapi.yaml');
const HEADER = '// Generated from spec/openapi.yaml by `make generate`. Do not edit by hand.\n\n';

// The spec's examples that show the version label. Examples are literal (Prism serves spec/openapi.yaml as
// written), so they cannot be generated from info.version; a bump that leaves one behind fails here instead.
const VERSION_EXAMPLES: Array<{ path: string; label: (value: Record<string, unknown>) => unknown }> = [
  { path: '/health', label: (value) => value.version },
  { path: '/openapi.json', label: (value) => (value.info as { version?: unknown } | undefined)?.version },
];

type Examples = { example?: Record<string, unknown>; examples?: Record<string, { value: Record<string, unknown> }> };
type Spec = {
  info: { version: string };
  paths: Record<string, { get: { responses: Record<string, { content: Record<string, Examples> }> } }>;
};

function checkVersionExamples(document: Spec): void {
  for (const { path: at, label } of VERSION_EXAMPLES) {
    const content = document.paths[at].get.responses['200'].content['application/json'];
    const values = [...(content.example ? [content.example] : []), ...Object.values(content.examples ?? {}).map((named) => named.value)];
    for (const value of values) {
      if (label(value) !== document.info.version) {
        throw new Error(
          `spec/openapi.yaml: an example of GET ${at} shows version ${String(label(value))}; info.version is ${document.info.version}`,
        );
      }
    }
  }
}

async function render(): Promise<Map<string, string>> {
  const document = parse(await fs.readFile(specFile, 'utf8')) as Spec;
  checkVersionExamples(document);
  // openapi-typescript annotates the document it is given (e.g. enums for discriminators): hand it a copy so
  // the bundled openapi.json stays the contract exactly as written. defaultNonNullable off: a request field
  // with a default (QuoteRequest.rateType) stays optional for the caller.
  const types =
    HEADER + astToString(await openapiTS(structuredClone(document) as never, { alphabetize: false, defaultNonNullable: false }));
  const version =
    HEADER +
    `/** The API version label (the spec's info.version). */\nexport const API_VERSION = ${JSON.stringify(document.info.version)};\n`;
  return new Map([
    ['generated/openapi.json', `${JSON.stringify(document, null, 2)}\n`],
    ['generated/api.d.ts', types],
    ['sdk/src/generated/api.ts', types],
    ['sdk/src/generated/version.ts', version],
  ]);
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const outputs = await render();
  const stale: string[] = [];
  for (const [relative, content] of outputs) {
    const file = path.join(root, relative);
    const current = await fs.readFile(file, 'utf8').catch(() => undefined);
    if (current === content) continue;
    stale.push(relative);
    if (!check) {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, content);
    }
  }
  if (check && stale.length > 0) {
    process.stderr.write(`generated/ is out of date with spec/openapi.yaml: ${stale.join(', ')}\nRun: make generate\n`);
    process.exit(1);
  }
  process.stdout.write(check ? 'generated files match the spec\n' : `generated: ${stale.length ? stale.join(', ') : 'nothing changed'}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
