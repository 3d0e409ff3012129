/**
 * Starting a worker thread on a module of this codebase, in the compiled dist/ (a .js file) and under tsx in
 * development (a .ts file) alike.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
