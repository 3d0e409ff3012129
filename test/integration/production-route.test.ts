/**
 * A permanent route in production mode, through HTTP, on real nodes where they can be had: the route's LTC
 * address comes from the LTC address source (the service's xpub, watched by the watch-only wallet of a
 * regtest node), an LTC payment confirms in mined blocks, accumulates and converts, and the fUSD payout goes
 * through the outbox to the Zano sender: `transfer` on the watch-only wallet, `sign_transfer` on the signer,
 * `submit_transfer`. Zano itself is the wallet RPC stand-in (test/support/zano-wallet.ts): no Zano software
 * installs here. The partner's earning is recorded.
 *
 * Skipped, with the reason printed, where litecoind, anvil or PostgreSQL is missing.
 */
import { expect } from 'chai';
import { createDevnetPartner, startDevnet, startDevnetServer, type Devnet, type DevnetServer } from '../support/devnet.js';
import { devnetClient, DEVNET_ADMIN_URL, eventually, skipWithoutDevnet } from '../support/production.js';
import { freshZanoWallet, signRouteRequest, waitForAddresses, type DepositList, type Route } from '../support/routes.js';
import type { swapClient } from '../support/swaps.js';
import { FUSD_ASSET_ID } from '../support/zano-wallet.js';
import { Money } from '../../server/domain/money.js';

const USER = 'route-customer';

describe('a permanent route in production (LTC in, fUSD out on Zano)', function () {
  this.timeout(180_000);
  let devnet: Devnet;
  let server: DevnetServer;
  let client: ReturnType<typeof swapClient>;

  before(async function () {
    await skipWithoutDevnet(this);
    devnet = await startDevnet({ adminUrl: DEVNET_ADMIN_URL, confirmations: { LTC: 2, ZANO: 3 }, zano: true });
    server = await startDevnetServer(devnet, { env: { ROUTE_POLL_SECONDS: '1', ROUTE_EXPECT_POLL_SECONDS: '1' } });
    client = devnetClient(server, await createDevnetPartner(devnet, 'Production routes'), USER);
  });

  after(async () => {
    await server?.stop();
    await devnet?.stop();
  });

  it('serves ZANO and fUSD, with the Zano wallet in /health', async () => {
    const assets = await client.send<{ assets: Array<{ symbol: string; network: string }> }>('GET', '/api/v1/assets');
    expect(assets.body.assets.map((a) => `${a.symbol}/${a.network}`)).to.include.members(['ZANO/ZANO', 'fUSD/ZANO', 'LTC/LTC']);
    const health = await client.send<{ checks: { networks: Array<Record<string, unknown>> } }>('GET', '/api/v1/health');
    expect(health.body.checks.networks.find((n) => n.network === 'ZANO')).to.include({ status: 'ok' });
  });

  it('converts an LTC payment to a route into fUSD paid by the Zano wallet, once, and records the earning', async () => {
    const markup = await client.send('PUT', '/api/v1/partner/markup', { percent: 0.5 });
    expect(markup.status, markup.text).to.equal(200);
    const wallet = freshZanoWallet();
    const created = await client.send<Route>(
      'POST',
      '/api/v1/permanent-routes',
      await signRouteRequest(client, USER, { destinationAsset: 'fUSD', wallet }),
    );
    expect(created.status, created.text).to.equal(201);
    const route = await waitForAddresses(client, created.body.route_id, 30_000);
    const ltcAddress = route.addresses['LTC/LTC'];
    // The LTC address source's: a regtest address of the service's xpub, watched by the watch-only wallet.
    expect(ltcAddress).to.match(/^rltc1q/);
    const watched = await devnet.litecoin.call<{ iswatchonly: boolean }>('getaddressinfo', [ltcAddress], devnet.wallets.watch);
    expect(watched.iswatchonly).to.equal(true);

    const txid = await devnet.payLtc(ltcAddress, '0.5');
    await devnet.mineLtc(2);
    const deposits = `/api/v1/permanent-routes/${route.route_id}/deposits`;
    // Where things stood, should a step not happen in time.
    const state = async () =>
      [
        `deposits ${(await client.send('GET', deposits)).text}`,
        `health ${(await client.send('GET', '/api/v1/health')).text}`,
        `watch wallet ${JSON.stringify(await devnet.litecoin.call('listtransactions', ['*', 10, 0, true], devnet.wallets.watch))}`,
        `route ${(await client.send('GET', `/api/v1/permanent-routes/${route.route_id}`)).text}`,
        await (async () => {
          const pg = (await import('pg')).default;
          const db = new pg.Client({ connectionString: devnet.database.url });
          await db.connect();
          try {
            const rows = async (sql: string) => JSON.stringify((await db.query(sql)).rows);
            return [
              `outputs ${await rows('select network, address, tx_hash, block_height, removed_at from chain_outputs')}`,
              `cursors ${await rows('select * from chain_cursors')}`,
              `leases ${await rows('select * from chain_watch_leases')}`,
              `routes ${await rows('select id, status, next_poll_at, expect_deposit_until from permanent_routes')}`,
            ].join('\n');
          } finally {
            await db.end();
          }
        })(),
        `--- server output ---\n${server.child.output().slice(-3000)}`,
      ].join('\n');
    const sending = await eventually(
      async () => {
        const list = await client.send<DepositList>('GET', deposits);
        const deposit = list.body.deposits.find((d) => d.txHash === txid);
        return deposit?.settlementTxHash ? deposit : undefined;
      },
      60_000,
      state,
    );
    // The payout went out through the cold-signing flow, and is mined as blocks follow.
    const submitted = devnet.zano!.hot.control.submissions.filter((s) => s.txHash === sending.settlementTxHash);
    expect(submitted, 'one submission of the payout').to.have.length(1);
    devnet.zano!.hot.control.mine(3);
    const finished = await eventually(
      async () => {
        const list = await client.send<DepositList>('GET', deposits);
        const deposit = list.body.deposits.find((d) => d.txHash === txid);
        return deposit?.status === 'finished' ? deposit : undefined;
      },
      60_000,
      state,
    );
    expect(finished.settlementTxHash).to.equal(sending.settlementTxHash);
    const paid = devnet.zano!.hot.control.calls.filter((c) => c.method === 'transfer');
    expect(paid, 'one transfer built').to.have.length(1);
    const destinations = (paid[0].params as { destinations: Array<{ address: string; amount: unknown; asset_id: string }> }).destinations;
    expect(destinations.map((d) => [d.address, d.asset_id])).to.deep.equal([[wallet.address, FUSD_ASSET_ID]]);
    // fUSD has 4 decimals: the atomic amount sent is exactly the order's output.
    expect(String(destinations[0].amount)).to.equal(new Money(finished.actualOutputAmount!).times(10_000).toFixed(0));
    expect(devnet.zano!.hot.control.submissions.filter((s) => s.txHash === finished.settlementTxHash)).to.have.length(1);

    const earnings = await client.send<{ earnings: Array<Record<string, unknown>> }>('GET', '/api/v1/partner/earnings');
    expect(earnings.status, earnings.text).to.equal(200);
    expect(earnings.body.earnings.length, earnings.text).to.be.greaterThan(0);
  });
});
