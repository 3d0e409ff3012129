import { expect } from 'chai';
import type { MarketSource } from '../../../../server/adapters/market/pairs.js';
import { createSourceClient, MarketSourceError, type SourceQuote } from '../../../../server/adapters/market/sources.js';

// Each client against a fetch that answers `body` (JSON) and records the URL asked.
function client(source: MarketSource, body: unknown) {
  const asked: string[] = [];
  const fetch = (async (url: string | URL | Request) => {
    asked.push(String(url));
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  return { ask: createSourceClient(source, { baseUrl: 'https://provider.example/', fetch, timeoutMs: 1000 }), asked };
}

async function refusal(promise: Promise<SourceQuote>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(MarketSourceError);
    return (err as Error).message;
  }
  throw new Error('expected a MarketSourceError');
}

const krakenTrades = (trades: unknown) => ({ error: [], result: { XXBTZUSD: trades, last: '1772366399123456789' } });
const krakenTrade = (price: unknown, time: unknown) => [price, '0.00100000', time, 'b', 'm', '', 61044956];

describe('market source clients (createSourceClient)', () => {
  describe('kraken', () => {
    it("asks the last trade and reads its price and its time in unix seconds, the provider's own", async () => {
      const { ask, asked } = client('kraken', krakenTrades([krakenTrade('68250.10000', 1772366399.8277369)]));
      const quote = await ask('XXBTZUSD');
      expect(asked).to.deep.equal(['https://provider.example/0/public/Trades?pair=XXBTZUSD&count=1']);
      expect(quote.price.toFixed()).to.equal('68250.1');
      expect(quote.currency).to.equal('USD');
      expect(quote.at.toISOString()).to.equal('2026-03-01T11:59:59.828Z');
    });

    it('takes the last of several trades (they come oldest first)', async () => {
      const { ask } = client('kraken', krakenTrades([krakenTrade('1.0', 1772366000), krakenTrade('2.0', 1772366399)]));
      const quote = await ask('XXBTZUSD');
      expect([quote.price.toFixed(), quote.at.toISOString()]).to.deep.equal(['2', '2026-03-01T11:59:59.000Z']);
    });

    const refused: Array<[string, unknown, RegExp]> = [
      ['an error', { error: ['EQuery:Unknown asset pair'] }, /^answered EQuery:Unknown asset pair$/],
      ['no list of trades', { error: [], result: { last: '1' } }, /answered without result.XXBTZUSD, the list of its trades/],
      ['an empty list of trades', krakenTrades([]), /answered no trade of XXBTZUSD/],
      ['a trade that is not a list', krakenTrades([{ price: '1' }]), /result.XXBTZUSD\[0\] = \{"price":"1"\}, not a trade/],
      [
        'a trade without a time',
        krakenTrades([['68250.1', '0.1']]),
        /result.XXBTZUSD\[0\]\[2\] = undefined, not a valid time \(unix seconds\)/,
      ],
      [
        'a time as a string',
        krakenTrades([krakenTrade('68250.1', '1772366399')]),
        /result.XXBTZUSD\[0\]\[2\] = "1772366399", not a valid time/,
      ],
      ['a zero time', krakenTrades([krakenTrade('68250.1', 0)]), /\[2\] = 0, not a valid time/],
      [
        'a zero price',
        krakenTrades([krakenTrade('0.00000', 1772366399)]),
        /result.XXBTZUSD\[0\]\[0\] = "0.00000", not a positive decimal price/,
      ],
      ['a negative price', krakenTrades([krakenTrade('-1', 1772366399)]), /\[0\] = "-1", not a positive decimal price/],
      ['a price in exponent notation', krakenTrades([krakenTrade('6.8e4', 1772366399)]), /\[0\] = "6.8e4", not a positive decimal price/],
      ['a price as a number', krakenTrades([krakenTrade(68250.1, 1772366399)]), /\[0\] = 68250.1, not a positive decimal price/],
    ];
    for (const [name, body, message] of refused) {
      it(`refuses ${name}`, async () => {
        expect(await refusal(client('kraken', body).ask('XXBTZUSD'))).to.match(message);
      });
    }
  });

  describe('binance', () => {
    const aggTrade = (p: unknown, T: unknown) => ({ a: 26129, p, q: '4.70443515', f: 27781, l: 27781, T, m: true, M: true });

    it("asks the last aggregate trade and reads its price in USDT and its time in unix milliseconds, the provider's own", async () => {
      const { ask, asked } = client('binance', [aggTrade('68260.00000000', 1772366398500)]);
      const quote = await ask('BTCUSDT');
      expect(asked).to.deep.equal(['https://provider.example/api/v3/aggTrades?symbol=BTCUSDT&limit=1']);
      expect(quote.price.toFixed()).to.equal('68260');
      expect(quote.currency).to.equal('USDT');
      expect(quote.at.toISOString()).to.equal('2026-03-01T11:59:58.500Z');
    });

    const refused: Array<[string, unknown, RegExp]> = [
      [
        'an answer that is not a list',
        { symbol: 'BTCUSDT', price: '1' },
        /answered \{"symbol":"BTCUSDT","price":"1"\}, not a list of trades/,
      ],
      ['an empty list', [], /answered no trade of BTCUSDT/],
      ['a trade that is not an object', ['68260'], /answered \[0\] = "68260", not a trade/],
      ['a trade without a time', [{ p: '68260.0' }], /\[0\].T = undefined, not a valid time \(unix milliseconds\)/],
      ['a time in seconds with a fraction', [aggTrade('68260.0', 1772366398.5)], /\[0\].T = 1772366398.5, not a valid time/],
      ['a time as a string', [aggTrade('68260.0', '1772366398500')], /\[0\].T = "1772366398500", not a valid time/],
      ['a time past what a date holds', [aggTrade('68260.0', 9e15)], /\[0\].T = 9000000000000000, not a valid time/],
      ['a zero price', [aggTrade('0', 1772366398500)], /\[0\].p = "0", not a positive decimal price/],
      ['a price that is not a decimal', [aggTrade('68,260.00', 1772366398500)], /\[0\].p = "68,260.00", not a positive decimal price/],
    ];
    for (const [name, body, message] of refused) {
      it(`refuses ${name}`, async () => {
        expect(await refusal(client('binance', body).ask('BTCUSDT'))).to.match(message);
      });
    }
  });

  describe('coinbase', () => {
    const ticker = (price: unknown, time: unknown) => ({ ask: '1', bid: '1', volume: '1', trade_id: 1, price, size: '0.1', time });

    it("reads the ticker's price and its last trade's time", async () => {
      const { ask, asked } = client('coinbase', ticker('68255.55', '2026-03-01T11:59:58.123456Z'));
      const quote = await ask('BTC-USD');
      expect(asked).to.deep.equal(['https://provider.example/products/BTC-USD/ticker']);
      expect([quote.price.toFixed(), quote.currency, quote.at.toISOString()]).to.deep.equal([
        '68255.55',
        'USD',
        '2026-03-01T11:59:58.123Z',
      ]);
    });

    const refused: Array<[string, unknown, RegExp]> = [
      ['a ticker without a time', ticker('68255.55', undefined), /answered time = undefined, not a valid ISO 8601 time/],
      ['a time that is not ISO 8601', ticker('68255.55', 'Sun, 01 Mar 2026 11:59:58 GMT'), /answered time = "Sun, 01 Mar 2026/],
      ['a time without its zone', ticker('68255.55', '2026-03-01T11:59:58'), /answered time = "2026-03-01T11:59:58", not a valid/],
      ['an impossible time', ticker('68255.55', '2026-13-01T11:59:58Z'), /answered time = "2026-13-01T11:59:58Z", not a valid/],
      ['a negative price', ticker('-68255.55', '2026-03-01T11:59:58Z'), /answered price = "-68255.55", not a positive decimal price/],
    ];
    for (const [name, body, message] of refused) {
      it(`refuses ${name}`, async () => {
        expect(await refusal(client('coinbase', body).ask('BTC-USD'))).to.match(message);
      });
    }
  });
});
