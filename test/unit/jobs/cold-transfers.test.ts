/**
 * Cold storage, the core's side (jobs/cold-transfers.ts, services/liquidity.ts coldSurplus, store/cold-transfers.ts,
 * the ops CLI's operations in server/operator.ts): the real looks and the real liquidity arithmetic on an
 * embedded database (PGlite, migrated), over a network board whose balance the test sets. What litecoind does
 * with a cold transfer is test/integration/production-cold-transfers.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { loadSandboxCatalog } from '../../../server/adapters/sandbox/catalog.js';
import { findAsset } from '../../../server/domain/catalog.js';
import { coldRulesOf, startColdTransfers } from '../../../server/jobs/cold-transfers.js';
import { listHeldPayoutsForOperator, releaseCold } from '../../../server/operator.js';
import { readProductionConfig } from '../../../server/production-config.js';
import { createHotWalletLiquidity } from '../../../server/services/liquidity.js';
import { migrate, openDatabase, type Database } from '../../../server/store/database.js';

const T0 = Date.parse('2026-06-14T09:00:00Z');
const COLD = 'rltc1quugexvt465ezt2zcgs9gyvm8kvs2p9sjf4dm6j';

describe('cold transfers: the core (jobs/cold-transfers.ts)', () => {
  const catalog = loadSandboxCatalog();
  const ltc = findAsset(catalog, 'LTC', 'LTC')!;
  let database: Database;
  let knex: Knex;
  let balance = '10';
  const clock = { ms: T0 };
  const now = () => new Date(clock.ms);
  const queued: string[] = [];
  const liquidity = createHotWalletLiquidity({
    catalog,
    status: { balance: () => ({ spendable: balance, height: 100 }), feeEstimate: () => '0.0001' },
    partnerSharePercent: '50',
    hotWalletMin: { 'LTC/LTC': '2' },
    hotWalletMax: { 'LTC/LTC': '6' },
  });
  let cold: ReturnType<typeof startColdTransfers>;

  before(async () => {
    database = await openDatabase({});
    knex = database.knex;
    await migrate(knex);
    // Quotes without their partners: the liquidity arithmetic never reads the partner.
    await knex.raw('alter table quotes drop constraint quotes_partner_id_foreign');
    cold = startColdTransfers({
      knex,
      liquidity,
      rules: [{ asset: ltc, address: COLD }],
      sendPayouts: async (ids) => void queued.push(...ids),
      confirmations: () => 3,
      intervalMs: 3_600_000,
      now,
      logger: pino({ level: 'silent' }),
    });
  });
  after(async () => {
    await cold?.stop();
    await database?.close();
  });
  beforeEach(async () => {
    await knex.raw('truncate payouts, payout_versions, liquidity_locks, chain_cursors, quotes cascade');
    queued.length = 0;
    balance = '10';
    clock.ms = T0;
  });

  const transfers = () =>
    knex('payouts').where({ purpose: 'cold' }).orderBy('created_at').select('id', 'status', 'amount', 'address', 'swap_id', 'released_at');

  it('commits the surplus down to halfway between HOT_WALLET_MIN and HOT_WALLET_MAX, with its send job, once', async () => {
    const [id] = await cold.look();
    const [row] = await transfers();
    expect(row).to.deep.include({ id, status: 'pending', address: COLD, swap_id: null });
    expect(String(row.amount)).to.equal('6');
    expect(queued).to.deep.equal([id]);
    // The next look counts it among the payouts the balance does not show yet: 10 - 6 is not above 6.
    clock.ms += 1_000;
    expect(await cold.look()).to.deep.equal([]);
    expect(await transfers()).to.have.length(1);
  });

  it('makes none at or below HOT_WALLET_MAX, nor when what is free is below the dust floor', async () => {
    balance = '6';
    expect(await cold.look()).to.deep.equal([]);
    // 10 held, a quote reserves 9.9979: 0.0001 left after the fee reserve (0.002), not above LTC's dust floor.
    balance = '10';
    await knex('quotes').insert(quoteRow('9.9979'));
    expect(await cold.look()).to.deep.equal([]);
    expect(await transfers()).to.deep.equal([]);
  });

  it('never takes what reservations and the fee reserve need: the transfer is what nothing promised', async () => {
    // A live fixed quote reserves 5 LTC of the 10: at most 10 - 5 - the fee reserve may go.
    await knex('quotes').insert(quoteRow('5'));
    const [id] = await cold.look();
    const row = await knex('payouts').where({ id }).first();
    expect(String(row.amount)).to.equal('4.998');
  });

  it('makes no other while one is held for an operator, and again once it is released', async () => {
    const [first] = await cold.look();
    // Refused for good: it paid nothing, and no longer counts against the balance.
    await knex('payouts').where({ id: first }).update({ status: 'failed', held_reason: 'the node refused it: bad-txns' });
    clock.ms += 1_000;
    expect(await cold.look()).to.deep.equal([]);
    const held = await listHeldPayoutsForOperator(knex, () => 3);
    expect(held.map((p) => ({ id: p.payoutId, swapId: p.swapId, purpose: p.purpose, remedies: p.remedies }))).to.deep.equal([
      { id: first, swapId: null, purpose: 'cold', remedies: [`cold release ${first}`] },
    ]);
    const jobs = { sendPayouts: async (ids: string[]) => void queued.push(...ids) };
    const wrong = await releaseCold({ knex, jobs, now }, { id: first!, rebroadcast: true, actor: 'ops', reason: 'checked' }).catch(
      (e) => e,
    );
    expect(wrong.status).to.equal(409);
    const released = await releaseCold({ knex, jobs, now }, { id: first!, rebroadcast: false, actor: 'ops', reason: 'address fixed' });
    expect(released.releasedAt).to.equal(now().toISOString());
    expect(await listHeldPayoutsForOperator(knex, () => 3)).to.deep.equal([]);
    clock.ms += 1_000;
    const [second] = await cold.look();
    expect(second).to.be.a('string').and.not.equal(first);
    const trail = await knex('operator_actions').where({ action: 'cold.release', target: first }).pluck('outcome');
    expect(trail.sort()).to.deep.equal(['refused', 'succeeded']);
  });

  it('releases one held after an ambiguous broadcast only with --rebroadcast: the same bytes, sent again', async () => {
    const [id] = await cold.look();
    await knex('payouts')
      .where({ id })
      .update({ status: 'review', tx_hash: 'ab'.repeat(32), signed_bytes: '00', held_reason: 'timed out' });
    const jobs = { sendPayouts: async (ids: string[]) => void queued.push(...ids) };
    const refused = await releaseCold({ knex, jobs, now }, { id: id!, rebroadcast: false, actor: 'ops', reason: 'x' }).catch((e) => e);
    expect(refused.status).to.equal(409);
    queued.length = 0;
    const again = await releaseCold({ knex, jobs, now }, { id: id!, rebroadcast: true, actor: 'ops', reason: 'not on chain' });
    expect(again.status).to.equal('signed');
    expect(queued).to.deep.equal([id]);
    expect(await cold.look()).to.deep.equal([]);
  });

  it('marks a transfer final once a block holds it as deep as the network asks', async () => {
    const [id] = await cold.look();
    await knex('payouts')
      .where({ id })
      .update({ status: 'broadcast', tx_hash: 'cd'.repeat(32), block_height: 101 });
    await knex('chain_cursors').insert({ network: 'LTC', tip_height: 102, tip_hash: 'ef'.repeat(32), scanned_at: now() });
    await cold.look();
    expect((await knex('payouts').where({ id }).first()).status).to.equal('broadcast');
    await knex('chain_cursors').where({ network: 'LTC' }).update({ tip_height: 103 });
    await cold.look();
    expect((await knex('payouts').where({ id }).first()).status).to.equal('confirmed');
  });

  describe('configuration: <NET>_COLD_ADDRESS', () => {
    const read = (env: Record<string, string>) => {
      const problems: string[] = [];
      const config = readProductionConfig({ NETWORKS: 'LTC,ETH', LTC_CHAIN: 'regtest', ...env }, problems);
      return { config, problems: problems.filter((p) => p.includes('COLD_ADDRESS')) };
    };

    it("is checked as a payout address of the network's chain", () => {
      expect(read({ LTC_COLD_ADDRESS: COLD }).problems).to.deep.equal([]);
      expect(read({ LTC_COLD_ADDRESS: 'ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9' }).problems).to.have.length(1);
      const [eth] = read({ ETH_COLD_ADDRESS: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' }).problems;
      expect(eth).to.match(/^ETH_COLD_ADDRESS=.*checksum/i);
    });

    it('makes a rule of each HOT_WALLET_MAX asset whose network has one, and names those that have none', () => {
      const { config } = read({ LTC_COLD_ADDRESS: COLD });
      const rules = coldRulesOf({ production: config, hotWalletMax: { 'LTC/LTC': '6', 'USDT/ETH': '500' } }, catalog);
      expect(rules.rules.map((r) => [r.asset.symbol, r.address])).to.deep.equal([['LTC', COLD]]);
      expect(rules.withoutAddress).to.deep.equal(['USDT/ETH']);
    });
  });

  function quoteRow(reserved: string) {
    return {
      id: randomUUID(),
      partner_id: randomUUID(),
      source_asset: 'USDT',
      source_network: 'ETH',
      destination_asset: 'LTC',
      destination_network: 'LTC',
      rate_type: 'fixed',
      source_amount: '1',
      deposit_amount: '1',
      receive_amount: reserved,
      reserved_amount: reserved,
      fee_usd: '1',
      rate: '1',
      minimum_source_amount: '1',
      maximum_source_amount: '1',
      estimated_minutes: 5,
      late_deposit_policy: 'refund',
      refund_mode: 'sender',
      expires_at: new Date(T0 + 120_000),
      created_at: now(),
    };
  }
});
