/**
 * What a page downloads for `@partner-swap/sdk/browser`: the entry's module graph, bundled as a frontend's
 * bundler would, holds no signing code and nothing of Node, and stays small. The same check of the partner
 * entry finds its signing code, so the check is one that can fail.
 */
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { build, type Metafile } from 'esbuild';

const BROWSER_ENTRY = fileURLToPath(new URL('../src/browser.ts', import.meta.url));
const PARTNER_ENTRY = fileURLToPath(new URL('../src/index.ts', import.meta.url));

/**
 * The gzip size the browser entry must stay under (the SDK README gives the measured size): 5 KiB until the entry
 * took in verifyDepositInstructions (about 1.7 KiB: WebCrypto does the cryptography, the rest is its checks and
 * the messages that say what is wrong).
 */
const BROWSER_BUNDLE_BUDGET_BYTES = 6 * 1024;

/** Bundles `entry` for `platform`, minified; returns its code and the modules it took in. */
async function bundle(entry: string, platform: 'browser' | 'node') {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform,
    minify: true,
    write: false,
    metafile: true,
    // Node's modules are left as imports, so they show up in the metafile's imports rather than failing the build.
    external: ['node:*'],
    logLevel: 'silent',
  });
  return { code: result.outputFiles[0].contents, metafile: result.metafile };
}

// Every module the bundle took in, and every import it left outside (node:crypto, were there any).
function graphOf(metafile: Metafile): { inputs: string[]; external: string[] } {
  const inputs = Object.keys(metafile.inputs);
  const external = Object.values(metafile.inputs).flatMap((input) => input.imports.filter((i) => i.external).map((i) => i.path));
  return { inputs, external };
}

describe('sdk browser entry (sdk/src/browser.ts) bundled', function () {
  this.timeout(30_000);

  it('takes in no signing code and no Node module', async () => {
    const { inputs, external } = graphOf((await bundle(BROWSER_ENTRY, 'browser')).metafile);
    expect(inputs.some((path) => path.endsWith('sdk/src/browser.ts'))).to.equal(true);
    expect(inputs.filter((path) => /signing|transport|client\.ts|webhooks/.test(path))).to.deep.equal([]);
    expect(external).to.deep.equal([]);
  });

  it('is what the check finds signing code and node:crypto in, for the partner entry', async () => {
    const { inputs, external } = graphOf((await bundle(PARTNER_ENTRY, 'node')).metafile);
    expect(inputs.some((path) => path.endsWith('sdk/src/signing.ts'))).to.equal(true);
    expect(external).to.include('node:crypto');
  });

  it(`stays under ${BROWSER_BUNDLE_BUDGET_BYTES / 1024} KiB minified and gzipped`, async () => {
    const { code } = await bundle(BROWSER_ENTRY, 'browser');
    const gzipped = gzipSync(code, { level: 9 }).length;
    console.log(`      browser entry: ${code.length} bytes minified, ${gzipped} bytes gzipped`);
    expect(gzipped).to.be.below(BROWSER_BUNDLE_BUDGET_BYTES);
  });
});
