/**
 * The local Zano wallet RPC server (test/support/zano-wallet.ts) against the documentation: each request is shaped
 * as in hyle-team/zano-docs (commit f8577075), each answer checked for the documented fields and types. Paths in
 * comments are in that repository unless they say hyle-team/zano (the C++ source, for what the docs leave out).
 */
import { expect } from 'chai';
import { isInteger, parse, stringify } from 'lossless-json';
import {
  FUSD_ASSET_ID,
  startZanoWallet,
  ZANO_ASSET_ID,
  ZANO_MIN_FEE,
  zanoAccountFromAddress,
  ZanoWalletErrorCode,
  type ZanoWallet,
} from '../support/zano-wallet.js';

type Json = Record<string, unknown>;
interface RpcAnswer {
  text: string;
  body: { id: unknown; jsonrpc: string; result?: Json; error?: { code: bigint; message: string } };
}

async function post(url: string, body: string): Promise<RpcAnswer> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await response.text();
  return { text, body: parse(text, null, (n) => (isInteger(n) ? BigInt(n) : Number(n))) as RpcAnswer['body'] };
}
const call = (w: ZanoWallet, method: string, params: Json = {}) => post(w.url, stringify({ id: 0, jsonrpc: '2.0', method, params }) ?? '');
async function result(w: ZanoWallet, method: string, params: Json = {}): Promise<Json> {
  const { body } = await call(w, method, params);
  expect(body.error, `${method}: ${JSON.stringify(body.error, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}` : v))}`).to.equal(
    undefined,
  );
  return body.result as Json;
}
async function rpcError(w: ZanoWallet, method: string, params: Json = {}): Promise<{ code: number; message: string }> {
  const { body } = await call(w, method, params);
  expect(body.result).to.equal(undefined);
  expect(body.jsonrpc).to.equal('2.0');
  expect(body.error).to.have.keys(['code', 'message']);
  return { code: Number(body.error!.code), message: body.error!.message };
}

const HEX64 = /^[0-9a-f]{64}$/;
const COIN = 1_000_000_000_000n;
// docs/build/exchange-guidelines/multi-assets-custody-guide.md, "Creating a Wallet" and "Receiving Money with
// Payment ID": this wallet's address and the integrated address the guide shows for payment id 1dfe5a88ff9effb3.
const GUIDE_ADDRESS = 'ZxCk74TxaFsRvbHrvebi5fgBLXDWukJ3VRXk6PENQ4orUTRfh11EHjCgCBxokeg5FEPHumvqJ76ikKHnD43iGjsE1cVfgebFa';
const GUIDE_INTEGRATED = 'iZ2EEMZWeKBRvbHrvebi5fgBLXDWukJ3VRXk6PENQ4orUTRfh11EHjCgCBxokeg5FEPHumvqJ76ikKHnD43iGjsECvV53PeAEkM3CLGRmST3';
// api-reference/wallet-rpc-api/transfer.md example destination.
const DOC_DESTINATION = 'ZxBvJDuQjMG9R2j4WnYUhBYNrwZPwuyXrC7FHdVmWqaESgowDvgfWtiXeNGu8Px9B24pkmjsA39fzSSiEQG1ekB225ZnrMTBp';

function expectAssetInfo(info: Json, withId: boolean): void {
  // api-reference/wallet-rpc-api/getbalance.md "asset_info" / assets_whitelist_add.md "asset_descriptor"
  expect(info).to.include.keys([
    'current_supply',
    'decimal_point',
    'full_name',
    'hidden_supply',
    'meta_info',
    'owner',
    'ticker',
    'total_max_supply',
  ]);
  for (const k of ['current_supply', 'decimal_point', 'total_max_supply']) expect(info[k], k).to.be.a('bigint');
  for (const k of ['full_name', 'meta_info', 'owner', 'ticker']) expect(info[k], k).to.be.a('string');
  expect(info.hidden_supply).to.be.a('boolean');
  if (withId) expect(info.asset_id).to.match(HEX64);
}

describe('Zano wallet RPC stand-in (test/support/zano-wallet.ts)', function () {
  let hot: ZanoWallet;
  let signer: ZanoWallet;

  beforeEach(async function () {
    hot = await startZanoWallet({ watchOnly: true, account: zanoAccountFromAddress(GUIDE_ADDRESS), height: 89_400 });
    signer = await startZanoWallet({ watchOnly: false, account: hot.control.account });
  });
  afterEach(async function () {
    await hot.close();
    await signer.close();
  });

  describe('addresses', function () {
    // api-reference/wallet-rpc-api/getaddress.md
    it('getaddress answers the standard address', async function () {
      const r = await result(hot, 'getaddress');
      expect(r).to.have.keys(['address']);
      expect(r.address).to.equal(GUIDE_ADDRESS);
    });

    // api-reference/wallet-rpc-api/make_integrated_address.md; custody guide "Receiving Money with Payment ID"
    it('make_integrated_address encodes the documented integrated address for a given payment id', async function () {
      const r = await result(hot, 'make_integrated_address', { payment_id: '1dfe5a88ff9effb3' });
      expect(r).to.have.keys(['integrated_address', 'payment_id']);
      expect(r).to.deep.equal({ integrated_address: GUIDE_INTEGRATED, payment_id: '1dfe5a88ff9effb3' });
    });

    // custody guide: "if payment_id parameter is empty or missing ... random 8 bytes will be generated"
    it('make_integrated_address makes a random 8-byte payment id when it is empty or missing', async function () {
      const a = await result(hot, 'make_integrated_address', { payment_id: '' });
      const b = await result(hot, 'make_integrated_address');
      expect(a.payment_id).to.match(/^[0-9a-f]{16}$/);
      expect(b.payment_id).to.match(/^[0-9a-f]{16}$/);
      expect(a.payment_id).not.to.equal(b.payment_id);
      expect(a.integrated_address).to.match(/^iZ/);
    });

    // HF6-migration-guide.md Table 3 ("up to 8-byte PID by default"); errors: hyle-team/zano on_make_integrated_address
    it('make_integrated_address refuses a payment id over 8 bytes or not hex (WRONG_PAYMENT_ID)', async function () {
      const long = await rpcError(hot, 'make_integrated_address', { payment_id: '1dfe5a88ff9effb301' });
      expect(long).to.deep.equal({
        code: ZanoWalletErrorCode.WRONG_PAYMENT_ID,
        message: "given payment id is too long: '1dfe5a88ff9effb301'",
      });
      const bad = await rpcError(hot, 'make_integrated_address', { payment_id: 'xyz' });
      expect(bad.code).to.equal(-5);
      expect(bad.message).to.equal("invalid payment id given: 'xyz', hex-encoded string was expected");
    });

    // api-reference/wallet-rpc-api/split_integrated_address.md; exchange-faq.md "How to validate an address?"
    it('split_integrated_address gives the standard address and payment id, also for a standard address', async function () {
      const r = await result(hot, 'split_integrated_address', { integrated_address: GUIDE_INTEGRATED });
      expect(r).to.have.keys(['payment_id', 'standard_address']);
      expect(r).to.deep.equal({ payment_id: '1dfe5a88ff9effb3', standard_address: GUIDE_ADDRESS });
      const s = await result(hot, 'split_integrated_address', { integrated_address: DOC_DESTINATION });
      expect(s).to.deep.equal({ payment_id: '', standard_address: DOC_DESTINATION });
    });

    // error from hyle-team/zano on_split_integrated_address
    it('split_integrated_address answers WRONG_ADDRESS for a mistyped address', async function () {
      const typo = GUIDE_INTEGRATED.slice(0, -1) + (GUIDE_INTEGRATED.endsWith('3') ? '4' : '3');
      expect(await rpcError(hot, 'split_integrated_address', { integrated_address: typo })).to.deep.equal({
        code: ZanoWalletErrorCode.WRONG_ADDRESS,
        message: `invalid integrated address given: '${typo}'`,
      });
    });
  });

  describe('wallet info and balance', function () {
    // api-reference/wallet-rpc-api/get_wallet_info.md (field spelled is_whatch_only)
    it('get_wallet_info tells a watch-only wallet from its signer', async function () {
      const r = await result(hot, 'get_wallet_info', { collect_utxo_data: false });
      expect(r).to.include.keys([
        'address',
        'current_height',
        'has_bare_unspent_outputs',
        'is_whatch_only',
        'path',
        'transfer_entries_count',
        'transfers_count',
      ]);
      expect(r.is_whatch_only).to.equal(true);
      expect(r.current_height).to.equal(89_400n);
      expect(r.transfers_count).to.be.a('bigint');
      expect((await result(signer, 'get_wallet_info')).is_whatch_only).to.equal(false);
    });

    // api-reference/wallet-rpc-api/getbalance.md; empty containers are left out (hyle-team/zano epee
    // keyvalue_serialization_overloads.h)
    it('getbalance of an empty wallet: zero native balances and no balances array', async function () {
      const r = await result(hot, 'getbalance');
      expect(r).to.deep.equal({ balance: 0n, unlocked_balance: 0n });
    });

    // api-reference/wallet-rpc-api/getbalance.md; custody guide "Requesting Wallet Balance"
    it('getbalance lists ZANO and fUSD with asset_info, total, unlocked, awaiting_in/out as exact integers', async function () {
      hot.control.receive({ assetId: ZANO_ASSET_ID, amount: 12n * COIN, height: 89_390 });
      hot.control.receive({ assetId: FUSD_ASSET_ID, amount: 2_500_000n, height: 89_390 });
      hot.control.receive({ assetId: ZANO_ASSET_ID, amount: COIN }); // in the pool
      const { text, body } = await call(hot, 'getbalance');
      const r = body.result as Json;
      expect(r).to.have.keys(['balance', 'balances', 'unlocked_balance']);
      expect(r.balance).to.equal(13n * COIN);
      expect(r.unlocked_balance).to.equal(12n * COIN);
      const balances = r.balances as Json[];
      const zano = balances.find((b) => (b.asset_info as Json).asset_id === ZANO_ASSET_ID)!;
      const fusd = balances.find((b) => (b.asset_info as Json).asset_id === FUSD_ASSET_ID)!;
      for (const b of [zano, fusd]) {
        expect(b).to.include.keys([
          'asset_info',
          'awaiting_in',
          'awaiting_out',
          'outs_amount_max',
          'outs_amount_min',
          'outs_count',
          'total',
          'unlocked',
        ]);
        expectAssetInfo(b.asset_info as Json, true);
      }
      expect(zano).to.include({ total: 13n * COIN, unlocked: 12n * COIN, awaiting_in: COIN, awaiting_out: 0n, outs_count: 1n });
      expect((zano.asset_info as Json).ticker).to.equal('ZANO');
      expect((zano.asset_info as Json).decimal_point).to.equal(12n);
      expect(fusd).to.include({ total: 2_500_000n, unlocked: 2_500_000n });
      expect((fusd.asset_info as Json).ticker).to.equal('fUSD');
      // uint64 above 2^53 goes on the wire as an exact JSON number (native total_max_supply = UINT64_MAX)
      expect(text).to.include('"total_max_supply":18446744073709551615');
    });
  });

  describe('history', function () {
    const request3 = {
      count: 100,
      exclude_mining_txs: false,
      exclude_unconfirmed: false,
      offset: 0,
      order: 'FROM_END_TO_BEGIN',
      update_provision_info: true,
    };

    // api-reference/wallet-rpc-api/get_recent_txs_and_info3.md
    it('get_recent_txs_and_info3 answers pi (curent_height) and transfers with the documented fields', async function () {
      const hash = hot.control.receive({ paymentId: '1dfe5a88ff9effb3', assetId: ZANO_ASSET_ID, amount: COIN, height: 89_395 });
      const r = await result(hot, 'get_recent_txs_and_info3', request3);
      expect(r).to.have.keys(['last_item_index', 'pi', 'total_transfers', 'transfers']);
      expect(r.pi).to.deep.equal({
        balance: COIN,
        curent_height: 89_400n,
        transfer_entries_count: 1n,
        transfers_count: 1n,
        unlocked_balance: 0n,
      });
      const [t] = r.transfers as Json[];
      expect(t).to.include.keys([
        'comment',
        'employed_entries',
        'fee',
        'height',
        'is_mining',
        'is_mixing',
        'is_service',
        'show_sender',
        'subtransfers_by_pid',
        'timestamp',
        'transfer_internal_index',
        'tx_blob_size',
        'tx_hash',
        'tx_type',
        'unlock_time',
      ]);
      expect(t).to.include({ tx_hash: hash, height: 89_395n, unlock_time: 0n, is_mining: false, tx_type: 0n });
      expect(t.timestamp).to.be.a('bigint');
      expect(t.subtransfers_by_pid).to.deep.equal([
        { payment_id: '1dfe5a88ff9effb3', subtransfers: [{ amount: COIN, asset_id: ZANO_ASSET_ID, is_income: true }] },
      ]);
      // custody guide: confirmations = pi.curent_height - height
      expect(hot.control.confirmations(hash)).to.equal(5);
      // remote_addresses is optional (custody guide), and left out when empty
      expect(t).not.to.have.property('remote_addresses');
    });

    // custody guide example (employed_entries.receive[].payment_id is the pid as a uint64, > 2^53) and
    // HF6-migration-guide.md "API changes": one tx, several payment ids and assets
    it('a tx carrying two payments shows two subtransfers_by_pid groups and exact uint64 payment ids', async function () {
      hot.control.receive({
        height: 89_390,
        payments: [
          { paymentId: '0536d409a8ffe80f', assetId: ZANO_ASSET_ID, amount: 11n * COIN },
          { paymentId: 'ea0281383b402d3d', assetId: FUSD_ASSET_ID, amount: 137n },
        ],
      });
      const { text, body } = await call(hot, 'get_recent_txs_and_info3', request3);
      const [t] = (body.result as Json).transfers as Json[];
      expect(t.subtransfers_by_pid).to.deep.equal([
        { payment_id: '0536d409a8ffe80f', subtransfers: [{ amount: 11n * COIN, asset_id: ZANO_ASSET_ID, is_income: true }] },
        { payment_id: 'ea0281383b402d3d', subtransfers: [{ amount: 137n, asset_id: FUSD_ASSET_ID, is_income: true }] },
      ]);
      expect(text).to.include('"payment_id":1146447202350282245');
      expect(text).to.include('"payment_id":4408250233360810730');
    });

    // ORDER and transfer_internal_index: hyle-team/zano wallet2.cpp get_recent_transfers_history (newest first for
    // FROM_END_TO_BEGIN); exclude_unconfirmed per get_recent_txs_and_info3.md
    it('orders newest first for FROM_END_TO_BEGIN, pages with offset, and puts unconfirmed first unless excluded', async function () {
      const older = hot.control.receive({ amount: 1n, height: 89_380 });
      const newer = hot.control.receive({ amount: 2n, height: 89_390 });
      const pending = hot.control.receive({ amount: 3n });
      const all = await result(hot, 'get_recent_txs_and_info3', request3);
      expect((all.transfers as Json[]).map((t) => t.tx_hash)).to.deep.equal([pending, newer, older]);
      expect((all.transfers as Json[])[0].height).to.equal(0n);
      expect(all.total_transfers).to.equal(2n);
      const confirmedOnly = await result(hot, 'get_recent_txs_and_info3', { ...request3, exclude_unconfirmed: true, count: 1 });
      expect((confirmedOnly.transfers as Json[]).map((t) => t.tx_hash)).to.deep.equal([newer]);
      expect(confirmedOnly.last_item_index).to.equal(0n);
      const page2 = await result(hot, 'get_recent_txs_and_info3', { ...request3, exclude_unconfirmed: true, count: 1, offset: 1 });
      expect((page2.transfers as Json[]).map((t) => [t.tx_hash, t.transfer_internal_index])).to.deep.equal([[older, 1n]]);
      const forward = await result(hot, 'get_recent_txs_and_info3', { ...request3, exclude_unconfirmed: true, order: 'FROM_BEGIN_TO_END' });
      expect((forward.transfers as Json[]).map((t) => t.tx_hash)).to.deep.equal([older, newer]);
      const past = await result(hot, 'get_recent_txs_and_info3', { ...request3, exclude_unconfirmed: true, offset: 5 });
      expect(past).not.to.have.property('transfers');
    });

    // HF6-migration-guide.md Table 3: deprecated methods "fail on txs with intrinsic PID"; how, from
    // hyle-team/zano wallet_public_structs_defs.h wallet_transfer_info_v2/_old: silently, no error
    it('deprecated get_recent_txs_and_info2 / search_for_transactions lose intrinsic payment ids', async function () {
      const hash = hot.control.receive({
        height: 89_390,
        payments: [
          { paymentId: '0536d409a8ffe80f', amount: COIN },
          { paymentId: 'ea0281383b402d3d', amount: COIN },
        ],
      });
      const v2 = await result(hot, 'get_recent_txs_and_info2', request3);
      const [t2] = v2.transfers as Json[];
      expect(t2.payment_id).to.equal('');
      expect(t2).not.to.have.property('subtransfers');
      const legacy = await result(hot, 'search_for_transactions', {
        tx_id: hash,
        in: true,
        out: true,
        pool: false,
        filter_by_height: false,
        min_height: 0,
        max_height: 0,
      });
      const [old] = legacy.in as Json[];
      expect(old).not.to.have.property('payment_id');
      expect(old).to.include({ amount: 2n * COIN, is_income: true });
    });

    // api-reference/wallet-rpc-api/search_for_transactions2.md; custody guide "Searching for Transactions"
    it('search_for_transactions2 finds a tx by id and height range, in in/out/pool', async function () {
      const hash = hot.control.receive({ paymentId: '1dfe5a88ff9effb3', amount: COIN, height: 89_390 });
      hot.control.receive({ amount: 5n, height: 89_391 });
      const r = await result(hot, 'search_for_transactions2', {
        filter_by_height: true,
        in: true,
        max_height: 89_395,
        min_height: 89_385,
        out: true,
        pool: false,
        tx_id: hash,
      });
      expect(r).to.have.keys(['in']);
      const [t] = r.in as Json[];
      expect(t).to.include({ tx_hash: hash, height: 89_390n });
      expect(t.subtransfers_by_pid).to.deep.equal([
        { payment_id: '1dfe5a88ff9effb3', subtransfers: [{ amount: COIN, asset_id: ZANO_ASSET_ID, is_income: true }] },
      ]);
      const none = await result(hot, 'search_for_transactions2', {
        filter_by_height: true,
        in: true,
        max_height: 89_389,
        min_height: 89_385,
        out: true,
        pool: false,
        tx_id: hash,
      });
      expect(none).to.deep.equal({});
    });
  });

  describe('controls', function () {
    // custody guide: "Do not deposit transactions where the unlock_time field is different from 0"
    it('unlock_time shows in history and keeps the amount out of unlocked until it passes', async function () {
      const hash = hot.control.receive({ amount: COIN, height: 89_390, unlockTime: 89_420 });
      const r = await result(hot, 'get_recent_txs_and_info3', {
        count: 10,
        offset: 0,
        order: 'FROM_END_TO_BEGIN',
        update_provision_info: true,
      });
      expect((r.transfers as Json[])[0]).to.include({ tx_hash: hash, unlock_time: 89_420n });
      expect(hot.control.balance().unlocked).to.equal(0n);
      hot.control.mine(18); // top 89_418: unlock_time <= top + 1 is not yet true
      expect(hot.control.balance().unlocked).to.equal(0n);
      hot.control.mine(1);
      expect(hot.control.balance().unlocked).to.equal(COIN);
    });

    // custody guide "Requesting Wallet Balance": assets off the whitelists stay out of getbalance until
    // assets_whitelist_add (api-reference/wallet-rpc-api/assets_whitelist_add.md)
    it('an unknown asset appears in history, not in getbalance, until assets_whitelist_add', async function () {
      const unknown = 'ab'.repeat(32);
      hot.control.receive({ assetId: unknown, amount: 42n, height: 89_380, assetInfo: { ticker: 'ABC', decimal_point: 6 } });
      const history = await result(hot, 'get_recent_txs_and_info3', {
        count: 10,
        offset: 0,
        order: 'FROM_END_TO_BEGIN',
        update_provision_info: false,
      });
      expect(((history.transfers as Json[])[0].subtransfers_by_pid as Json[])[0]).to.deep.include({
        subtransfers: [{ amount: 42n, asset_id: unknown, is_income: true }],
      });
      expect(await result(hot, 'getbalance')).not.to.have.property('balances');
      const added = await result(hot, 'assets_whitelist_add', { asset_id: unknown });
      expect(added).to.have.keys(['asset_descriptor', 'status']);
      expect(added.status).to.equal('OK');
      expectAssetInfo(added.asset_descriptor as Json, false);
      expect((added.asset_descriptor as Json).ticker).to.equal('ABC');
      const balances = (await result(hot, 'getbalance')).balances as Json[];
      expect(balances.map((b) => (b.asset_info as Json).asset_id)).to.deep.equal([unknown]);
      // api-reference/wallet-rpc-api/assets_whitelist_get.md
      const lists = await result(hot, 'assets_whitelist_get');
      expect((lists.local_whitelist as Json[]).map((a) => a.asset_id)).to.deep.equal([unknown]);
      expect((lists.global_whitelist as Json[]).map((a) => a.asset_id)).to.include(FUSD_ASSET_ID);
      // an asset the network does not know: status NOT_FOUND (hyle-team/zano on_assets_whitelist_add)
      expect((await result(hot, 'assets_whitelist_add', { asset_id: 'cd'.repeat(32) })).status).to.equal('NOT_FOUND');
    });

    // custody guide: "the network undergoes reorganisation among the last 2-3 blocks ... including the removal of
    // transactions that previously appeared"
    it('reorg removes a transfer from history and balance (or returns it to the pool)', async function () {
      const keep = hot.control.receive({ amount: COIN, height: 89_390 });
      const gone = hot.control.receive({ amount: 2n * COIN, height: 89_399 });
      const back = hot.control.receive({ amount: 3n * COIN, height: 89_399 });
      expect(hot.control.reorg(gone)).to.equal(true);
      expect(hot.control.reorg(back, { toPool: true })).to.equal(true);
      const r = await result(hot, 'get_recent_txs_and_info3', {
        count: 10,
        offset: 0,
        order: 'FROM_END_TO_BEGIN',
        update_provision_info: true,
      });
      expect((r.transfers as Json[]).map((t) => [t.tx_hash, t.height])).to.deep.equal([
        [back, 0n],
        [keep, 89_390n],
      ]);
      expect(hot.control.balance().total).to.equal(4n * COIN);
      expect(hot.control.reorg('00'.repeat(32))).to.equal(false);
    });

    // docs/use/troubleshooting/locked-balance.md ("change ... lock time is 10 blocks"); custody guide ("unlocked ...
    // does not include incoming transactions that have not reached 10 confirmations, for example change")
    it('change of a sent transfer stays out of unlocked for 10 blocks', async function () {
      const hotFull = await startZanoWallet({ height: 1000 });
      try {
        hotFull.control.receive({ amount: 10n * COIN, height: 900 });
        const sent = await result(hotFull, 'transfer', {
          destinations: [{ address: DOC_DESTINATION, amount: COIN, asset_id: ZANO_ASSET_ID }],
          fee: ZANO_MIN_FEE,
          mixin: 15,
        });
        expect(sent).to.include.keys(['tx_hash', 'tx_size', 'tx_details', 'used_out_ids']);
        expect(sent.tx_hash).to.match(HEX64);
        const change = 10n * COIN - COIN - ZANO_MIN_FEE;
        let b = await result(hotFull, 'getbalance');
        expect(b).to.include({ balance: change, unlocked_balance: 0n });
        expect((b.balances as Json[])[0]).to.include({ awaiting_out: COIN });
        hotFull.control.mine(9);
        expect((await result(hotFull, 'getbalance')).unlocked_balance).to.equal(0n);
        hotFull.control.mine(1);
        b = await result(hotFull, 'getbalance');
        expect(b).to.include({ balance: change, unlocked_balance: change });
        expect(hotFull.control.submissions).to.have.length(1);
      } finally {
        await hotFull.close();
      }
    });
  });

  describe('transfer, cold signing and errors', function () {
    const destination = (amount: bigint, asset_id = ZANO_ASSET_ID) => [{ address: DOC_DESTINATION, amount, asset_id }];
    beforeEach(function () {
      hot.control.receive({ amount: 20n * COIN, height: 89_300 });
      hot.control.receive({ assetId: FUSD_ASSET_ID, amount: 1_000_000n, height: 89_300 });
    });

    // signing-transactions-offline.md steps 4, 6, 7; transfer.md, sign_transfer.md, submit_transfer.md
    it('watch-only transfer answers an unsigned tx; the signer signs it; the hot wallet submits it once', async function () {
      const unsignedAnswer = await result(hot, 'transfer', {
        destinations: destination(5000n, FUSD_ASSET_ID),
        fee: ZANO_MIN_FEE,
        mixin: 15,
        hide_receiver: true,
        payment_id: '',
        push_payer: false,
      });
      expect(unsignedAnswer).to.have.keys(['tx_hash', 'tx_size', 'tx_unsigned_hex', 'used_out_ids']);
      expect(unsignedAnswer).to.include({ tx_hash: '', tx_size: 0n });
      expect(unsignedAnswer.tx_unsigned_hex).to.match(/^[0-9a-f]+$/);
      expect(unsignedAnswer.used_out_ids).to.be.an('array').that.is.not.empty;

      const signed = await result(signer, 'sign_transfer', { tx_unsigned_hex: unsignedAnswer.tx_unsigned_hex });
      expect(signed).to.have.keys(['tx_hash', 'tx_signed_hex']);
      expect(signed.tx_hash).to.match(HEX64);

      const submitted = await result(hot, 'submit_transfer', { tx_signed_hex: signed.tx_signed_hex });
      expect(submitted).to.deep.equal({ tx_hash: signed.tx_hash });
      expect(hot.control.submissions).to.deep.equal([{ txHash: signed.tx_hash, accepted: true, error: undefined }]);

      const pending = await result(hot, 'get_recent_txs_and_info3', {
        count: 10,
        offset: 0,
        order: 'FROM_END_TO_BEGIN',
        update_provision_info: true,
      });
      const out = (pending.transfers as Json[])[0];
      expect(out).to.include({ tx_hash: signed.tx_hash, height: 0n, fee: ZANO_MIN_FEE });
      expect((out.subtransfers_by_pid as Json[])[0].subtransfers).to.deep.include({
        amount: 5000n,
        asset_id: FUSD_ASSET_ID,
        is_income: false,
      });
    });

    // signing-transactions-offline.md NOTE: "don't sign more than one time the same tx_unsigned_hex, as you'll get
    // two transactions with different tx_id but spending the same key_images"
    it('signing one unsigned tx twice gives a conflicting tx that the network refuses', async function () {
      const { tx_unsigned_hex } = await result(hot, 'transfer', { destinations: destination(COIN), fee: ZANO_MIN_FEE });
      const first = await result(signer, 'sign_transfer', { tx_unsigned_hex });
      const second = await result(signer, 'sign_transfer', { tx_unsigned_hex });
      expect(second.tx_hash).not.to.equal(first.tx_hash);
      await result(hot, 'submit_transfer', { tx_signed_hex: first.tx_signed_hex });
      const inPool = await rpcError(hot, 'submit_transfer', { tx_signed_hex: second.tx_signed_hex });
      expect(inPool.code).to.equal(ZanoWalletErrorCode.GENERIC_TRANSFER_ERROR);
      expect(inPool.message).to.match(/^WALLET_RPC_ERROR_CODE_GENERIC_TRANSFER_ERROR: .*transaction was rejected by daemon/s);
      hot.control.mine(1);
      const mined = await rpcError(hot, 'submit_transfer', { tx_signed_hex: second.tx_signed_hex });
      expect(mined.code).to.equal(ZanoWalletErrorCode.KEY_IMAGE_ALREADY_SPENT);
      expect(mined.message).to.match(
        /^submit_transfer seems to be abused: input key image [0-9a-f]{64} of tx [0-9a-f]{64} is already spent, according to daemon$/,
      );
      expect(hot.control.submissions.map((s) => [s.txHash, s.accepted])).to.deep.equal([
        [first.tx_hash, true],
        [second.tx_hash, false],
        [second.tx_hash, false],
      ]);
    });

    // hyle-team/zano wallet2.cpp sign_transfer / submit_transfer: each only in its role
    it('sign_transfer refuses on the watch-only wallet, submit_transfer on the signer', async function () {
      const { tx_unsigned_hex } = await result(hot, 'transfer', { destinations: destination(COIN), fee: ZANO_MIN_FEE });
      const notSigner = await rpcError(hot, 'sign_transfer', { tx_unsigned_hex });
      expect(notSigner.code).to.equal(ZanoWalletErrorCode.GENERIC_TRANSFER_ERROR);
      expect(notSigner.message).to.match(/^WALLET_RPC_ERROR_CODE_GENERIC_TRANSFER_ERROR: .*watch-only wallet is unable to sign transfers/s);
      const signed = await result(signer, 'sign_transfer', { tx_unsigned_hex });
      const notHot = await rpcError(signer, 'submit_transfer', { tx_signed_hex: signed.tx_signed_hex });
      expect(notHot.code).to.equal(-4);
      expect(notHot.message).to.include('submit_transfer should be called in watch-only wallet only');
      expect(await rpcError(signer, 'sign_transfer', { tx_unsigned_hex: 'zz' })).to.deep.equal({
        code: ZanoWalletErrorCode.WRONG_ARGUMENT,
        message: 'tx_unsigned_hex is invalid',
      });
    });

    // exchange-faq.md "Minimum transaction fee is 0.01 ZANO"; message from hyle-team/zano on_transfer
    it('a fee under 0.01 ZANO is refused with WRONG_ARGUMENT', async function () {
      expect(await rpcError(hot, 'transfer', { destinations: destination(COIN), fee: ZANO_MIN_FEE - 1n })).to.deep.equal({
        code: ZanoWalletErrorCode.WRONG_ARGUMENT,
        message: 'Given fee is too low: 9999999999, minimum is: 10000000000',
      });
    });

    // error codes: hyle-team/zano src/wallet/wallet_rpc_server_error_codes.h, WALLET_RPC_CATCH_TRY_ENTRY
    it('not enough money, a wrong address, a tx-wide payment id, push_payer and an integrated address to self', async function () {
      const poor = await rpcError(hot, 'transfer', { destinations: destination(100n * COIN), fee: ZANO_MIN_FEE });
      expect(poor.code).to.equal(ZanoWalletErrorCode.NOT_ENOUGH_MONEY);
      expect(poor.message).to.match(
        /^WALLET_RPC_ERROR_CODE_NOT_ENOUGH_MONEY: .*available: 20\.0, required: 100\.01 = 100\.0 \+ 0\.01 \(fee\)$/s,
      );
      const wrong = await rpcError(hot, 'transfer', { destinations: [{ address: 'Zxnotanaddress', amount: 1n }], fee: ZANO_MIN_FEE });
      expect(wrong).to.deep.equal({
        code: ZanoWalletErrorCode.WRONG_ADDRESS,
        message: 'WALLET_RPC_ERROR_CODE_WRONG_ADDRESS: Zxnotanaddress',
      });
      const txWide = await rpcError(hot, 'transfer', { destinations: destination(1n), fee: ZANO_MIN_FEE, payment_id: '1dfe5a88ff9effb3' });
      expect(txWide).to.deep.equal({
        code: ZanoWalletErrorCode.WRONG_PAYMENT_ID,
        message: 'tx-wide payment id you provided is now deprecated: 1dfe5a88ff9effb3',
      });
      const payer = await rpcError(hot, 'transfer', { destinations: destination(1n), fee: ZANO_MIN_FEE, push_payer: true });
      expect(payer).to.deep.equal({ code: ZanoWalletErrorCode.WRONG_ARGUMENT, message: 'push_payer=true is not supported anymore' });
      const self = await rpcError(hot, 'transfer', { destinations: [{ address: GUIDE_INTEGRATED, amount: 1n }], fee: ZANO_MIN_FEE });
      expect(self).to.deep.equal({
        code: ZanoWalletErrorCode.WRONG_PAYMENT_ID,
        message: `transfers with an integrated address to self is not allowed: ${GUIDE_INTEGRATED}`,
      });
    });

    // exchange-faq.md "We got 'Invalid params' RPC response: Make sure you pass amounts as integers not strings";
    // -32601/-32700 from hyle-team/zano contrib/epee/include/net/http_server_handlers_map2.h
    it('answers JSON-RPC errors for string amounts, unknown methods and broken JSON', async function () {
      expect(
        await rpcError(hot, 'transfer', { destinations: [{ address: DOC_DESTINATION, amount: '1000' }], fee: ZANO_MIN_FEE }),
      ).to.deep.equal({ code: -32602, message: 'Invalid params' });
      expect(await rpcError(hot, 'no_such_method')).to.deep.equal({ code: -32601, message: 'Method not found' });
      const broken = await post(hot.url, '{"jsonrpc":"2.0","id":0,');
      expect(Number(broken.body.error!.code)).to.equal(-32700);
      expect(broken.body.error!.message).to.equal('Parse error');
    });

    it('clear_utxo_cold_sig_reservation frees outputs an unsigned tx reserved', async function () {
      // api-reference/wallet-rpc-api/clear_utxo_cold_sig_reservation.md
      await result(hot, 'transfer', { destinations: destination(COIN), fee: ZANO_MIN_FEE });
      const poor = await rpcError(hot, 'transfer', { destinations: destination(COIN), fee: ZANO_MIN_FEE });
      expect(poor.code).to.equal(ZanoWalletErrorCode.NOT_ENOUGH_MONEY);
      const cleared = await result(hot, 'clear_utxo_cold_sig_reservation');
      expect(cleared.status).to.equal('OK');
      expect((cleared.affected_outputs as Json[])[0].pk).to.match(HEX64);
      await result(hot, 'transfer', { destinations: destination(COIN), fee: ZANO_MIN_FEE });
    });
  });
});
