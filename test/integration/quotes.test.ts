import { expect } from 'chai';
import { freshZanoWallet } from '../support/routes.js';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError } from '../support/http.js';
import { btcToUsdt, swapClient } from '../support/swaps.js';

describe('POST /quotes', () => {
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;
  const quote = (body: Record<string, unknown>) =>
    client.send<{ quote: Record<string, string | number | null> }>('POST', '/api/v1/quotes', body);

  before(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_QUOTES_PER_MINUTE: '10000' } });
    client = swapClient(server.origin, await server.createSigner('Quoter'));
  });
  after(() => server.close());

  it('returns a fixed quote whose fees are folded into receiveAmount', async () => {
    const res = await quote(btcToUsdt('0.015', { rateType: 'fixed' }));
    expect(res.status, res.text).to.equal(200);
    const q = res.body.quote;
    expect(q).to.include({
      sourceAmount: '0.015',
      depositAmount: '0.015',
      rateType: 'fixed',
      minimumReceiveAmount: null,
      lateDepositPolicy: 'refund',
    });
    expect(q.estimatedMinutes).to.equal(25);
    const gross = new Decimal(q.sourceAmount as string).times(q.rate as string);
    expect(new Decimal(q.receiveAmount as string).lessThan(gross)).to.equal(true);
    expect(new Decimal(q.feeUsd as string).greaterThan(0)).to.equal(true);
    // Rounded down to USDT's 6 decimal places.
    expect(q.receiveAmount).to.match(/^\d+(\.\d{1,6})?$/);
    expect(new Date(q.expiresAt as string).getTime() - Date.now()).to.be.within(100_000, 121_000);
  });

  it('returns a floating quote with its slippage bound and the market_rate late policy', async () => {
    const q = (await quote(btcToUsdt('0.015', { rateType: 'floating' }))).body.quote;
    expect(q).to.include({ rateType: 'floating', lateDepositPolicy: 'market_rate' });
    expect(new Decimal(q.minimumReceiveAmount as string).lessThan(q.receiveAmount as string)).to.equal(true);
  });

  it('picks the rate type with the higher receiveAmount for best, and says which', async () => {
    const best = (await quote(btcToUsdt('0.015'))).body.quote;
    const fixed = (await quote(btcToUsdt('0.015', { rateType: 'fixed' }))).body.quote;
    const floating = (await quote(btcToUsdt('0.015', { rateType: 'floating' }))).body.quote;
    const higher = new Decimal(fixed.receiveAmount as string).greaterThan(floating.receiveAmount as string) ? 'fixed' : 'floating';
    expect(best.rateType).to.equal(higher);
  });

  it('stores each of many quotes made at once as its own, with what its request asked (quotes are written in groups)', async () => {
    const refundAddress = 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh';
    const requests = Array.from({ length: 40 }, (_, i) =>
      btcToUsdt(new Decimal('0.01').plus(new Decimal(i).times('0.0001')).toFixed(), i % 2 ? { refundMode: 'address', refundAddress } : {}),
    );
    const answers = await Promise.all(requests.map((r) => quote(r)));
    answers.forEach((res, i) => {
      expect(res.status, res.text).to.equal(200);
      expect(res.body.quote.sourceAmount).to.equal(requests[i].sourceAmount);
    });
    const ids = answers.map((res) => res.body.quote.id as string);
    expect(new Set(ids).size).to.equal(40);
    const rows = await server.knex('quotes').whereIn('id', ids);
    const byId = new Map(rows.map((row) => [row.id as string, row]));
    answers.forEach((res, i) => {
      const row = byId.get(res.body.quote.id as string)!;
      expect(row.source_amount).to.equal(requests[i].sourceAmount);
      expect(row.receive_amount).to.equal(res.body.quote.receiveAmount);
      expect(row.refund_mode).to.equal(requests[i].refundMode);
      expect(row.refund_address).to.equal(i % 2 ? refundAddress : null);
      expect(new Date(row.expires_at).toISOString()).to.equal(res.body.quote.expiresAt);
    });
  });

  it('stores the quote bound to the partner', async () => {
    const q = (await quote(btcToUsdt())).body.quote;
    const row = await server.knex('quotes').where({ id: q.id }).first();
    const [partner] = await server.knex('partners').where({ name: 'Quoter' });
    expect(row.partner_id).to.equal(partner.id);
    expect(row.receive_amount).to.equal(q.receiveAmount);
  });

  it('answers amount_below_minimum with the limits in details', async () => {
    const res = await quote(btcToUsdt('0.00001'));
    expectError(res, 409, 'amount_below_minimum');
    const details = (res.body as unknown as { error: { details: Record<string, string> } }).error.details;
    expect(details.minimumSourceAmount).to.match(/^0\.000\d+$/);
    expect(details.maximumSourceAmount).to.match(/^1\.\d+$/);
  });

  it('answers amount_above_maximum with the limits in details, in both assets', async () => {
    const res = await quote(btcToUsdt('5'));
    expectError(res, 409, 'amount_above_maximum');
    expect((res.body as unknown as { error: { details: Record<string, string> } }).error.details).to.have.keys(
      'minimumSourceAmount',
      'maximumSourceAmount',
      'minimumDestinationAmount',
      'maximumDestinationAmount',
    );
  });

  it('answers rate_type_unavailable for a fixed rate on a pair that offers only floating', async () => {
    const res = await quote({ ...btcToUsdt('0.015'), destinationAsset: 'ZANO', destinationNetwork: 'ZANO', rateType: 'fixed' });
    expectError(res, 409, 'rate_type_unavailable');
  });

  it('answers pair_unavailable for an asset the catalogue does not list, and for a pair of one asset', async () => {
    expectError(await quote({ ...btcToUsdt(), destinationAsset: 'DOT', destinationNetwork: 'DOT' }), 409, 'pair_unavailable');
    expectError(await quote({ ...btcToUsdt(), destinationAsset: 'BTC', destinationNetwork: 'BTC' }), 409, 'pair_unavailable');
  });

  it("refuses more decimal places than the source asset has (BTC's 8)", async () => {
    expectError(await quote(btcToUsdt('0.015000001')), 400, 'invalid_request');
  });

  it('refuses a refund address with a bad checksum with invalid_refund_address', async () => {
    const res = await quote(btcToUsdt('0.015', { refundMode: 'address', refundAddress: 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlj' }));
    expectError(res, 400, 'invalid_refund_address');
    expect((res.body as unknown as { error: { details: { field: string } } }).error.details.field).to.equal('refundAddress');
  });

  it('refuses refundMode sender for a source asset that needs a memo (XRP, TON), naming why, and takes an address with a memo', async () => {
    const fromXrp = { ...btcToUsdt('50'), sourceAsset: 'XRP', sourceNetwork: 'XRP' };
    for (const body of [fromXrp, { ...fromXrp, sourceAsset: 'TON', sourceNetwork: 'TON', sourceAmount: '10' }]) {
      const res = await quote(body);
      expectError(res, 400, 'invalid_refund_address');
      const error = (res.body as unknown as { error: { message: string; details: { field: string; network: string } } }).error;
      expect(error.details).to.include({ field: 'refundMode', network: body.sourceNetwork });
      expect(error.message).to.match(/refundMode sender is not available .* refundMode address with refundAddress and refundMemo/);
    }
    const withMemo = await quote({
      ...fromXrp,
      refundMode: 'address',
      refundAddress: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh',
      refundMemo: '12345',
    });
    expect(withMemo.status, withMemo.text).to.equal(200);
  });

  it('refuses refundMode sender on ZANO, whose transactions do not reveal their sender, and takes a refund address', async () => {
    const fromZano = { ...btcToUsdt('100'), sourceAsset: 'ZANO', sourceNetwork: 'ZANO' };
    const res = await quote(fromZano);
    expectError(res, 400, 'invalid_refund_address');
    const error = (res.body as unknown as { error: { message: string; details: { field: string; network: string } } }).error;
    expect(error.details).to.include({ field: 'refundMode', network: 'ZANO' });
    expect(error.message).to.match(/do not reveal their sender/);
    const withAddress = await quote({ ...fromZano, refundMode: 'address', refundAddress: freshZanoWallet().address });
    expect(withAddress.status, withAddress.text).to.equal(200);
  });

  it('refuses refundMode sender on XMR, whose transactions do not reveal their sender either, and takes a Monero refund address', async () => {
    const fromXmr = { ...btcToUsdt('1'), sourceAsset: 'XMR', sourceNetwork: 'XMR' };
    const res = await quote(fromXmr);
    expectError(res, 400, 'invalid_refund_address');
    const error = (res.body as unknown as { error: { message: string; details: { field: string; network: string } } }).error;
    expect(error.details).to.include({ field: 'refundMode', network: 'XMR' });
    expect(error.message).to.match(/do not reveal their sender/);
    // The Monero General Fund's published address, and a Zano one refused as the wrong network's.
    const refundAddress = '44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3A';
    const withAddress = await quote({ ...fromXmr, refundMode: 'address', refundAddress });
    expect(withAddress.status, withAddress.text).to.equal(200);
    const zanoAddress = await quote({ ...fromXmr, refundMode: 'address', refundAddress: freshZanoWallet().address });
    expectError(zanoAddress, 400, 'invalid_refund_address');
  });

  it('refuses every sourceAmount the reference pattern refuses (property, through HTTP)', async () => {
    const pattern = /^(?=.*[1-9])(?:0|[1-9]\d*)(?:\.\d{1,18})?$/;
    await fc.assert(
      fc.asyncProperty(
        fc
          .string({ unit: fc.constantFrom('0', '1', '5', '.', '-', 'e', 'E', ' ', '+', ','), maxLength: 12 })
          .filter((t) => !pattern.test(t)),
        async (amount) => {
          const res = await quote(btcToUsdt(amount));
          expect(res.status, `${JSON.stringify(amount)}: ${res.text}`).to.equal(400);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses the sourceAmount forms the reference pattern refuses', async () => {
    for (const amount of ['01', '1.', '.5', '-1', '1e3', '0', '0.0', '1.0000000000000000001', ' 1']) {
      expectError(await quote(btcToUsdt(amount)), 400, 'invalid_request');
    }
  });
});
