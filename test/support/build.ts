/**
 * The project compiled as `npm run build` compiles it (tsconfig.build.json: the server and its CLIs), once per
 * test process, into a directory of its own under .tmp (so that the compiled files find node_modules), removed
 * when the process exits. The compiled-server suite checks that build; the CLI suites run their commands on it,
 * because each `node --import tsx scripts/ops.ts` spent about a second compiling the sources
 * it imports before it did anything (1.9 s against 0.9 s a command, measured on `ops audit list`).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '../..');
const TSC = path.join(root, 'node_modules/typescript/bin/tsc');

let built: Promise<string> | undefined;

/** The directory of this process's build (server/main.js, scripts/ops.js, ...); compiles on the first call. */
export function compiledBuild(): Promise<string> {
  // A failed build is not remembered: the next suite that asks tries again.
  built ??= compile().catch((err: unknown) => {
    built = undefined;
    throw err;
  });
  return built;
}

/** `node <the compiled script>`: the arguments that run `scripts/<name>.ts` of the build. */
export async function compiledScript(name: 'ops' | 'partners'): Promise<string[]> {
  return [path.join(await compiledBuild(), 'scripts', `${name}.js`)];
}

async function compile(): Promise<string> {
  fs.mkdirSync(path.join(root, '.tmp'), { recursive: true });
  const outDir = fs.mkdtempSync(path.join(root, '.tmp', 'test-build-'));
  process.once('exit', () => fs.rmSync(outDir, { recursive: true, force: true }));
  try {
    await promisify(execFile)(process.execPath, [TSC, '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: root });
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`tsc -p tsconfig.build.json failed:\n${stdout}${stderr}`, { cause: err });
  }
  return outDir;
}
