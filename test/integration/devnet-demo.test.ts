/**
 * `make devnet-demo` as a user runs it: scripts/devnet-demo.ts, with no devnet running, starts one (litecoind,
 * monerod, anvil, the Zano wallet RPC stand-ins, market servers, PostgreSQL, the server in production mode),
 * swaps 0.5 LTC and then 0.5 XMR to USDT for real and pays 0.5 LTC to a route that settles in fUSD, and exits 0
 * only when each swap finished with exactly its USDT at the destination and the route's deposit finished with
 * a fUSD payout. Without monerod the XMR swap is skipped (the demo says so).
 * Skipped, with the reason printed, where litecoind, anvil or PostgreSQL is missing.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { devnetUnavailable } from '../support/devnet.js';
import { moneroMissing } from '../support/monerod.js';
import { DEVNET_ADMIN_URL, realNodesElsewhere } from '../support/production.js';
import { spawnGroup } from '../support/process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('make devnet-demo (real LTC -> USDT and XMR -> USDT swaps on local nodes)', function () {
  this.timeout(360_000);

  before(async function () {
    const missing = realNodesElsewhere() ?? (await devnetUnavailable(DEVNET_ADMIN_URL));
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    // A devnet the developer left running would be used instead of a fresh one; the test wants its own.
    if (existsSync(path.join(ROOT, '.tmp/devnet.json'))) {
      console.log('      skipped: a devnet is running here (.tmp/devnet.json); the demo would use it');
      this.skip();
    }
  });

  it('starts its own devnet, swaps LTC and XMR to USDT down to the payout on anvil, converts a route payment to fUSD, and exits 0', async () => {
    const demo = spawnGroup(process.execPath, ['--import', 'tsx', 'scripts/devnet-demo.ts'], {}, ROOT);
    const code = await new Promise<number | null>((resolve) => demo.process.once('exit', resolve));
    const output = demo.output();
    expect(code, output).to.equal(0);
    const statuses = [...output.matchAll(/^timeline {2}\S+ {2}(\w+)/gm)].map((m) => m[1]);
    expect(statuses).to.include.ordered.members(['waiting', 'confirming']);
    expect(statuses.slice(-3), output).to.deep.equal(['exchanging', 'sending', 'finished']);
    expect(output).to.match(/^on chain {2}payout 0x[0-9a-f]{64} in block \d+ \(success\)$/m);
    const finished = [...output.matchAll(/^finished {2}([\d.]+) USDT sent; the destination's balance grew by ([\d.]+)$/gm)];
    const plain = (amount: string) => amount.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
    for (const swap of finished) expect(plain(swap[2])).to.equal(plain(swap[1]));
    if (moneroMissing) {
      expect(finished, output).to.have.length(1);
      expect(output).to.match(/^--- a swap: XMR -> USDT: skipped/m);
    } else {
      // Both swaps, LTC first, then XMR paid to an integrated address of the view-only wallet.
      expect(finished, output).to.have.length(2);
      expect(output).to.match(/^--- a swap: XMR -> USDT on Ethereum$/m);
      expect(output).to.match(/^deposit {3}4\w{105}: an integrated address of the service's view-only wallet/m);
      expect(output).to.match(/^paid {6}0\.5 XMR in [0-9a-f]{64}$/m);
    }
    // The route: its LTC address, the deposit through its states, and the fUSD payout.
    expect(output).to.match(/^address {3}LTC: rltc1q\w+ \(from the service's LTC xpub/m);
    const states = [...output.matchAll(/^deposit {3}(\w+)/gm)].map((m) => m[1]).filter((s) => s !== 'not' && !s.startsWith('rltc'));
    expect(states.at(-1), output).to.equal('finished');
    expect(output).to.match(/^finished {2}[\d.]+ fUSD paid on Zano in [0-9a-f]{64} \(order [0-9a-f-]{36}\)$/m);
  });
});
