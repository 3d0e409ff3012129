/**
 * Starting a worker thread on a module of this codebase, in the compiled dist/ (a .js file) and under tsx in
 * development (a .ts file) alike.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The source a `new Worker(source, { eval: true })` runs to load the module `name` that sits next to the
 * module whose `import.meta.url` is `nextTo`: `.js` beside compiled code, `.ts` beside the sources. A worker
 * thread does not inherit tsx's loader, so for a .ts module it registers tsx before the import.
 */
export function workerModuleSource(name: string, nextTo: string): string {
  const url = new URL(`./${name}${path.extname(fileURLToPath(nextTo))}`, nextTo).href;
  if (!url.endsWith('.ts')) return `import(${JSON.stringify(url)})`;
  const tsx = import.meta.resolve('tsx/esm/api');
  return `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(url)}); })`;
}

// Node 24's V8 (13.6) can free a WebAssembly import wrapper twice: when its wasm code GC frees a wrapper while
// another thread tiers the same wrapper up, the process dies on "Check failed: jit_page_->allocations_.erase(addr)
// == 1" (V8 bug 409379692, fixed in V8 13.7, which no Node 24 release has; nodejs/node#64500). Threads that start,
// run WebAssembly and end are that workload: the test suite's Node 24 pass died of it once, opening and closing
// embedded databases. So on V8 13.0 to 13.6 the code GC is off; the code that functions were tiered up from is
// then kept instead of freed.
const [V8_MAJOR, V8_MINOR] = process.versions.v8.split('.').map(Number);

/** The V8 options a process that runs WebAssembly starts with: `--no-wasm-code-gc` on V8 13.0 to 13.6. */
export const WASM_V8_OPTIONS: readonly string[] = V8_MAJOR === 13 && V8_MINOR <= 6 ? ['--no-wasm-code-gc'] : [];

/**
 * Starts a worker thread on `source` (workerModuleSource). Both of ours run WebAssembly (PGlite in the embedded
 * database's, hash-wasm's Keccak in the crypto thread's), so WASM_V8_OPTIONS are set first. V8 reads the flag
 * each time code becomes unused, so setting it before the first thread covers the process.
 */
export function startWorker(source: string, options: WorkerOptions): Worker {
  for (const option of WASM_V8_OPTIONS) v8.setFlagsFromString(option);
  return new Worker(source, options);
}
