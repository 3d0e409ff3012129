/**
 * Exact-output quotes (POST /quotes with destinationAmount): the quote is fixed-rate, pays out exactly the
 * amount asked, and names the deposit that pays it; a sandbox swap from it finishes with exactly that output.
 * Through HTTP and through the SDK.
 */
import { expect } from 'chai';
import { partnerClient } from '../../sdk/test/support/partner-client.js';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { createSandboxRates } from '../../server/adapters/sandbox/rates.js';
import { Money } from '../../server/domain/money.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectError } from '../support/http.js';
import { ETH_ADDRESS, swapClient, type Quote } from '../support/swaps.js';

const exactUsdt = (destinationAmount: string, extra: Record<string, unknown> = {}) => ({
  sourceAsset: 'BTC',
  sourceNetwork: 'BTC',
  destinationAsset: 'USDT',
  destinationNetwork: 'ETH',
  destinationAmount,
  refundMode: 'sender',
  ...extra,
});

describe('exact-output quotes: POST /quotes with destinationAmount', function () {
  this.timeout(60_000);
  let server: TestServer;
  let client: ReturnType<typeof swapClient>;
  before(async () => {
    // The sandbox's prices drift with time; held at one moment, quotes taken one after another compare.
    const drifting = createSandboxRates(loadSandboxCatalog());
    const held = new Date('2026-06-14T10:00:00.000Z');
    server = await startTestServer({
      env: { RATE_LIMIT_QUOTES_PER_MINUTE: '10000', RATE_LIMIT_SWAPS_PER_MINUTE: '10000' },
      deps: { rates: { priceUsd: (symbol, network) => drifting.priceUsd(symbol, network, held) } },
    });
    client = swapClient(server.origin, await server.createSigner('Merchant'));
  });
  after(() => server.close());

  const quoteOf = async (body: Record<string, unknown>) => {
    const res = await client.send<{ quote: Quote }>('POST', '/api/v1/quotes', body);
    expect(res.status, res.text).to.equal(200);
    return res.body.quote;
  };

  it('quotes a fixed rate that pays out exactly the amount asked, for the least deposit that covers it', async () => {
    const quote = await quoteOf(exactUsdt('100'));
    expect(quote.rateType).to.equal('fixed');
    expect(quote.receiveAmount).to.equal('100');
    expect(quote.depositAmount).to.equal(quote.sourceAmount);
    // The same deposit quoted the ordinary way pays out at least 100, and one satoshi less pays out less.
    const forward = await quoteOf({ ...exactUsdt('1'), destinationAmount: undefined, sourceAmount: quote.sourceAmount, rateType: 'fixed' });
    expect(new Money(forward.receiveAmount).greaterThanOrEqualTo('100')).to.equal(true);
    const less = new Money(quote.sourceAmount).minus('0.00000001').toFixed();
    const smaller = await quoteOf({ ...exactUsdt('1'), destinationAmount: undefined, sourceAmount: less, rateType: 'fixed' });
    expect(new Money(smaller.receiveAmount).lessThan('100')).to.equal(true);
  });

  it('finishes a sandbox swap from it with exactly the amount asked paid out', async () => {
    const request = exactUsdt('250.5');
    const quote = await quoteOf(request);
    const { destinationAmount: _asked, ...rest } = request;
    void _asked;
    const created = await client.createRaw({
      ...rest,
      sourceAmount: quote.sourceAmount,
      quoteId: quote.id,
      rateType: 'fixed',
      destinationAddress: ETH_ADDRESS,
    });
    expect(created.status, created.text).to.equal(202);
    const order = created.body.order;
    expect(order.expectedOutputAmount).to.equal('250.5');
    await client.pay(order);
    const done = await client.waitFor(order.id, (o) => o.status === 'finished');
    expect(done.order.actualOutputAmount).to.equal('250.5');
  });

  it('refuses both amounts and neither (400), a floating rate (409), and too many decimals (400)', async () => {
    expectError(await client.send('POST', '/api/v1/quotes', exactUsdt('100', { sourceAmount: '0.01' })), 400, 'invalid_request');
    expectError(await client.send('POST', '/api/v1/quotes', { ...exactUsdt('100'), destinationAmount: undefined }), 400, 'invalid_request');
    expectError(await client.send('POST', '/api/v1/quotes', exactUsdt('100', { rateType: 'floating' })), 409, 'rate_type_unavailable');
    expectError(await client.send('POST', '/api/v1/quotes', exactUsdt('100.0000001')), 400, 'invalid_request');
  });

  it('names the limits in both assets when the amount is out of range', async () => {
    for (const [amount, code] of [
      ['1', 'amount_below_minimum'],
      ['5000000', 'amount_above_maximum'],
    ] as const) {
      const res = await client.send<{ error: { message: string; details: Record<string, string> } }>(
        'POST',
        '/api/v1/quotes',
        exactUsdt(amount),
      );
      expectError(res, 409, code);
      expect(res.body.error.details).to.have.keys(
        'minimumSourceAmount',
        'maximumSourceAmount',
        'minimumDestinationAmount',
        'maximumDestinationAmount',
      );
      expect(res.body.error.details.minimumDestinationAmount).to.equal('20');
      expect(res.body.error.details.maximumDestinationAmount).to.equal('100000');
      expect(res.body.error.message).to.contain('destinationAmount').and.contain('BTC').and.contain('USDT');
    }
  });

  it('is in the SDK: quotes.create({ destinationAmount })', async () => {
    const sdk = await partnerClient(server);
    const { data, error } = await sdk.quotes.create({
      sourceAsset: 'BTC',
      sourceNetwork: 'BTC',
      destinationAsset: 'USDT',
      destinationNetwork: 'ETH',
      destinationAmount: '42',
      refundMode: 'sender',
    });
    expect(error).to.equal(undefined);
    expect(data!.quote).to.include({ receiveAmount: '42', rateType: 'fixed' });
  });
});
