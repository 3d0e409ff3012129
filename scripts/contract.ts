/**
 * `make contract`: checks the real server against the spec. Starts the server on a throw-away embedded
 * database, puts `prism proxy --errors` in front of it (Prism validates every real response against the
 * spec, its response schemas closed, and turns a violation into a 500), and runs Dredd through the proxy
 * with test/contract/dredd-hooks.cjs, which signs requests, provokes the documented 4xx cases and skips what
 * cannot run yet.
 * Every child runs in its own process group and the whole group is stopped at the end.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { freePort, spawnGroup, waitForHttp, type Child } from '../test/support/process.js';
import { provisionPartner } from '../server/partners.js';
import { openDatabase } from '../server/store/database.js';
import { createSecretBox } from '../server/store/secret-box.js';
import { closeResponseSchemas, loadApiDocument } from '../server/spec.js';

// Small limits so the hooks can exhaust them to provoke each 429; large enough for Dredd's own traffic and the
// quotes and swaps the hooks create to set up state (POST /quotes and POST /swaps are classes of their own).
const PUBLIC_LIMIT = 60;
const SIGNED_LIMIT = 40;
const QUOTES_LIMIT = 30;
const SWAPS_LIMIT = 20;
// Spare partners: one per signed 429 transaction (its allowance is spent), one per sandbox operation, one for
// the permanent-route operations together and one for a route's deposits and expect-deposit window, so that the
// swaps, challenges, routes and payments they set up, and the polling that needs, do not spend the main
// partner's allowance. 27 are taken today (21 + 4 + 1 + 1); the rest is headroom.
const SPARE_PARTNERS = 30;
// The sandbox chain makes a block this often (seconds); a BTC deposit needs 2 confirmations to reach review.
const SANDBOX_BLOCK_SECONDS = '0.2';
// Addresses the contract server's denylist names: a destination on ETH and a refund address on BTC.
const DENIED_DESTINATION = '0x52908400098527886E0F7030069857D2E4169EE7';
const DENIED_REFUND = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name: string) => path.join(root, 'node_modules/.bin', name);

async function main(): Promise<number> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-contract-'));
  const children: Child[] = [];
  try {
    const serverPort = await freePort();
    const proxyPort = await freePort();
    const secretsKey = randomBytes(32).toString('hex');
    const audience = `http://127.0.0.1:${proxyPort}`;
    // Address screening's denylist (docs/screening.md), so the hooks can provoke each 403 address_denied.
    const denylist = path.join(dataDir, 'denylist.txt');
    await fs.writeFile(denylist, `ETH:${DENIED_DESTINATION}\nBTC:${DENIED_REFUND}\n`);
    const serverEnv = {
      SECRETS_KEY: secretsKey,
      RATE_LIMIT_PUBLIC_PER_MINUTE: String(PUBLIC_LIMIT),
      RATE_LIMIT_SIGNED_PER_MINUTE: String(SIGNED_LIMIT),
      RATE_LIMIT_QUOTES_PER_MINUTE: String(QUOTES_LIMIT),
      RATE_LIMIT_SWAPS_PER_MINUTE: String(SWAPS_LIMIT),
      SANDBOX_BLOCK_SECONDS,
      PORT: String(serverPort),
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
      VALIDATE_RESPONSES: 'true',
      PUBLIC_ORIGIN: audience,
      // The hooks' webhook receiver listens on this machine (test/contract/dredd-hooks.cjs).
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      SCREENING_DENYLIST_FILE: denylist,
    };
    const server = spawnGroup(process.execPath, ['--import', 'tsx', 'server/main.ts'], serverEnv, root);
    children.push(server);
    await waitForHttp(`http://127.0.0.1:${serverPort}/api/v1/health`, 60_000, server);
    const partners = await provisionContractPartners(dataDir, secretsKey);

    // Prism checks the real responses against the closed copy of the contract (server/spec.ts): the published
    // one leaves responses open for fields added within v1, which would let an undocumented field through.
    const closedSpec = path.join(dataDir, 'openapi-closed.json');
    await fs.writeFile(closedSpec, JSON.stringify(closeResponseSchemas(loadApiDocument().document)));
    const proxy = spawnGroup(
      bin('prism'),
      ['proxy', '--errors', '--host', '127.0.0.1', '--port', String(proxyPort), closedSpec, `http://127.0.0.1:${serverPort}/api/v1`],
      {},
      root,
    );
    children.push(proxy);
    await waitForHttp(`http://127.0.0.1:${proxyPort}/health`, 60_000, proxy);

    const dredd = spawnGroup(
      bin('dredd'),
      [
        'spec/openapi.yaml',
        `http://127.0.0.1:${proxyPort}`,
        '--hookfiles=test/contract/dredd-hooks.cjs',
        '--language=nodejs',
        '--loglevel=warning',
      ],
      {
        PSS_SERVER_URL: `http://127.0.0.1:${serverPort}`,
        PSS_AUDIENCE: audience,
        PSS_PARTNERS: JSON.stringify(partners),
        PSS_LIMIT_PUBLIC: String(PUBLIC_LIMIT),
        PSS_LIMIT_SIGNED: String(SIGNED_LIMIT),
        PSS_LIMIT_QUOTES: String(QUOTES_LIMIT),
        PSS_LIMIT_SWAPS: String(SWAPS_LIMIT),
        PSS_DENIED_DESTINATION: DENIED_DESTINATION,
        PSS_DENIED_REFUND: DENIED_REFUND,
      },
      root,
    );
    children.push(dredd);
    dredd.process.stdout?.pipe(process.stdout);
    dredd.process.stderr?.pipe(process.stderr);
    const code = await new Promise<number | null>((resolve) => dredd.process.once('exit', resolve));
    if (code !== 0) {
      process.stderr.write(`\n--- server log ---\n${server.output().slice(-8000)}\n--- proxy log ---\n${proxy.output().slice(-4000)}\n`);
      // Last, so that a log that keeps only its tail still shows what failed.
      process.stderr.write(`\n--- what Dredd reported as failed ---\n${failures(dredd.output()).slice(-6000)}\n`);
    }
    return code ?? 1;
  } finally {
    for (const child of children.reverse()) await child.stop('SIGTERM', 5_000);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

// Dredd's failed and errored transactions, each with the lines that explain it (up to the next result line).
function failures(output: string): string {
  // eslint-disable-next-line no-control-regex
  const lines = output.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const picked: string[] = [];
  let inFailure = false;
  for (const line of lines) {
    if (/^(pass|skip|hook|info|complete): /.test(line)) inFailure = false;
    if (/^(fail|error): /.test(line)) inFailure = true;
    if (inFailure) picked.push(line);
  }
  return picked.length > 0 ? picked.join('\n') : '(no fail or error line: Dredd itself stopped)';
}

// Partners for the hooks, created through the running server's embedded database (shared over its socket).
async function provisionContractPartners(dataDir: string, secretsKey: string) {
  const db = await openDatabase({ dataDir });
  try {
    const box = createSecretBox(Buffer.from(secretsKey, 'hex'));
    const create = async (name: string) => {
      const { keyId, secret } = await provisionPartner(db.knex, box, { name, mode: 'sandbox' });
      return { keyId, secret };
    };
    const main = await create('Contract main partner');
    const other = await create('Contract other partner');
    const spares = [];
    for (let i = 0; i < SPARE_PARTNERS; i++) spares.push(await create(`Contract spare ${i}`));
    return { main, other, spares };
  } finally {
    await db.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`contract run failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
