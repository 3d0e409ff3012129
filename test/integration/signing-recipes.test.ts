/**
 * The signing recipes for partners who do not use Node (examples/signing/: Python, Go, bash with openssl and
 * curl): each recomputes the published vector (request signature and webhook delivery) and makes a signed
 * GET /partner/markup that a real server answers with 200. A language whose toolchain is missing is skipped
 * with the reason printed (.ci/run installs Go from Debian where it runs as root).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { signingVector } from '../support/signing-vector.js';
import type { SignerOptions } from '../support/signer.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const VECTOR = path.join(root, 'test/fixtures/signing-vector.json');
// Go: no module downloads (the recipe has no dependencies) and no toolchain switch.
const GO_ENV = { GOPROXY: 'off', GOTOOLCHAIN: 'local', GOFLAGS: '' };

interface Run {
  code: number;
  output: string;
}

/** Runs a command without blocking the event loop (the server under test runs in this process). */
function run(command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd ?? root, env: { ...process.env, ...options.env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** Undefined when every command runs (`<command> <probe args>` exits 0), else why the recipe is skipped. */
async function missing(probes: [string, string[]][]): Promise<string | undefined> {
  for (const [command, args] of probes) {
    if ((await run(command, args)).code !== 0) return `no working ${command} on PATH`;
  }
  return undefined;
}

interface Recipe {
  language: string;
  /** Why it cannot run here, or undefined. */
  check(): Promise<string | undefined>;
  /** Builds it if needed; returns the command line that runs it. */
  prepare(workDir: string): Promise<string[]>;
  env?: Record<string, string>;
}

const recipes: Recipe[] = [
  {
    language: 'Python 3 (examples/signing/python)',
    check: () => missing([['python3', ['--version']]]),
    prepare: async () => ['python3', path.join(root, 'examples/signing/python/pss_signing.py')],
    env: { PYTHONDONTWRITEBYTECODE: '1' },
  },
  {
    language: 'Go (examples/signing/go)',
    check: async () => {
      const reason = await missing([['go', ['version']]]);
      return reason && `${reason} (apt-get install golang-go; .ci/run installs it)`;
    },
    async prepare(workDir) {
      const binary = path.join(workDir, 'pss-signing-go');
      const build = await run('go', ['build', '-o', binary, '.'], { cwd: path.join(root, 'examples/signing/go'), env: GO_ENV });
      expect(build.code, build.output).to.equal(0);
      return [binary];
    },
  },
  {
    language: 'bash with openssl and curl (examples/signing/shell)',
    check: () =>
      missing([
        ['bash', ['--version']],
        ['openssl', ['version']],
        ['curl', ['--version']],
      ]),
    prepare: async () => ['bash', path.join(root, 'examples/signing/shell/pss-signing.sh')],
  },
];

describe('signing recipes for partners without Node (examples/signing)', () => {
  let server: TestServer;
  let signer: SignerOptions;
  let workDir: string;

  before(async () => {
    server = await startTestServer();
    signer = await server.createSigner('Recipe partner');
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pss-signing-recipes-'));
    // Copies of the vector with one value changed: a recipe must fail on each.
    const tamper = (name: string, changes: Partial<typeof signingVector>) =>
      fs.writeFileSync(path.join(workDir, name), `${JSON.stringify({ ...signingVector, ...changes }, null, 2)}\n`);
    const hex = signingVector.signatureHeader;
    tamper('wrong-request-signature.json', { signatureHeader: `${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}` });
    tamper('wrong-webhook-body.json', { webhookBody: signingVector.webhookBody.replace('"finished"', '"failed"') });
  });
  after(async () => {
    await server?.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  for (const recipe of recipes) {
    describe(recipe.language, () => {
      let command: string[];
      const runRecipe = (...args: string[]) => run(command[0], [...command.slice(1), ...args], { env: recipe.env });

      before(async function () {
        this.timeout(180_000);
        const reason = await recipe.check();
        if (reason) {
          console.log(`      skipped: ${reason}`);
          return this.skip();
        }
        command = await recipe.prepare(workDir);
      });

      it('recomputes the request signature and verifies the webhook delivery of the published vector', async () => {
        const result = await runRecipe('vector', VECTOR);
        expect(result.code, result.output).to.equal(0);
        expect(result.output).to.contain(signingVector.signatureHeader);
        expect(result.output).to.contain('webhook signature verifies');
        expect(result.output).not.to.contain('MISMATCH');
      });

      it('fails on a vector whose request signature or webhook body was changed', async () => {
        for (const name of ['wrong-request-signature.json', 'wrong-webhook-body.json']) {
          const result = await runRecipe('vector', path.join(workDir, name));
          expect(result.code, `${name}: ${result.output}`).to.equal(1);
          expect(result.output).to.contain('MISMATCH');
        }
      });

      it('makes a signed GET /partner/markup that the server answers with 200', async () => {
        const result = await runRecipe('call', server.baseUrl, signer.keyId, signer.secret, signer.audience);
        expect(result.code, result.output).to.equal(0);
        expect(result.output).to.contain('GET /api/v1/partner/markup -> 200');
        expect(result.output).to.contain('"percent"');
      });

      it('exits non-zero, printing the 401, when the secret is wrong', async () => {
        const result = await runRecipe('call', server.baseUrl, signer.keyId, `${signer.secret}x`, signer.audience);
        expect(result.code, result.output).to.equal(1);
        expect(result.output).to.contain('-> 401');
        expect(result.output).to.contain('invalid_signature');
      });
    });
  }
});
