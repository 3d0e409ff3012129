import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);
const CHURN = fileURLToPath(new URL('../fixtures/embedded-churn.ts', import.meta.url));

// Node 24's V8 (13.6) frees a WebAssembly import wrapper twice when its wasm code GC races a tier-up on another
// thread, and aborts the process (server/worker-module.ts, startWorker). V8 prints each code GC
// with --trace-wasm-code-gc.
const [v8Major, v8Minor] = process.versions.v8.split('.').map(Number);
const doubleFreeInV8 = v8Major === 13 && v8Minor <= 6;

describe('embedded database on V8’s WebAssembly code GC', () => {
  it(
    doubleFreeInV8
      ? `runs no wasm code GC on V8 ${process.versions.v8}, whose code GC can free an import wrapper twice`
      : `leaves V8 ${process.versions.v8}’s wasm code GC on, since it has no such double free`,
    async function () {
      this.timeout(60_000);
      const { stdout, stderr } = await run(process.execPath, ['--trace-wasm-code-gc', '--import', 'tsx', CHURN], {
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(stdout, stderr).to.contain('opened and closed 3 embedded databases');
      const codeGcs = stdout.split('\n').filter((line) => line.startsWith('[wasm-gc] Starting GC')).length;
      if (doubleFreeInV8) expect(codeGcs, 'wasm code GCs').to.equal(0);
      else expect(codeGcs, 'wasm code GCs').to.be.greaterThan(0);
    },
  );
});
