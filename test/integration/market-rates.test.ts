import { expect } from 'chai';
import { createMarketRates, type MarketRatesOptions } from '../../server/adapters/market/rates.js';
import type { RatesAdapter } from '../../server/adapters/rates.js';
import { AppError } from '../../server/domain/errors.js';
import { refusedUrl, startFakeProvider, type FakeProvider } from '../support/market-data.js';

const START = new Date('2026-03-01T12:00:00Z');

describe('market rates (createMarketRates against local providers)', () => {
  let kraken: FakeProvider;
  let binance: FakeProvider;
  let coinbase: FakeProvider;
  let clock: Date;

  beforeEach(async () => {
    [kraken, binance, coinbase] = await Promise.all([
      startFakeProvider('kraken'),
      startFakeProvider('binance'),
      startFakeProvider('coinbase'),
    ]);
    clock = new Date(START);
    // One valid world: every provider agrees within a few hundredths of a percent, USDT is worth 1, and every
    // last trade is a second or two old by the provider's own clock.
    kraken.markets.set('XXBTZUSD', { price: '68250.10000', time: new Date(START.getTime() - 1000) });
    kraken.markets.set('XETHZUSD', { price: '3410.50000', time: new Date(START.getTime() - 1000) });
    kraken.markets.set('USDTZUSD', { price: '1.00000000', time: new Date(START.getTime() - 1000) });
    kraken.markets.set('USDCUSD', { price: '0.99990000', time: new Date(START.getTime() - 1000) });
    binance.markets.set('BTCUSDT', { price: '68260.00000000', time: new Date(START.getTime() - 1500) });
    binance.markets.set('ETHUSDT', { price: '3411.00000000', time: new Date(START.getTime() - 1500) });
    binance.markets.set('USDCUSDT', { price: '0.99980000', time: new Date(START.getTime() - 1500) });
    coinbase.markets.set('BTC-USD', { price: '68255.55', time: new Date(START.getTime() - 2000) });
    coinbase.markets.set('ETH-USD', { price: '3410.91', time: new Date(START.getTime() - 2000) });
    coinbase.markets.set('USDT-USD', { price: '1.0000', time: new Date(START.getTime() - 2000) });
    coinbase.markets.set('USDC-USD', { price: '1.0000', time: new Date(START.getTime() - 2000) });
  });

  afterEach(async () => {
    await Promise.all([kraken.close(), binance.close(), coinbase.close()]);
  });

  const rates = (options: MarketRatesOptions = {}): RatesAdapter =>
    createMarketRates({
      urls: { kraken: kraken.url, binance: binance.url, coinbase: coinbase.url },
      now: () => clock,
      fetchTimeoutSeconds: 2,
      ...options,
    });

  const ago = (seconds: number) => new Date(clock.getTime() - seconds * 1000);

  const unavailable = async (promise: Promise<unknown>): Promise<AppError> => {
    try {
      await promise;
    } catch (err) {
      expect(err).to.be.instanceOf(AppError);
      const appError = err as AppError;
      expect(appError.status).to.equal(503);
      expect(appError.code).to.equal('service_unavailable');
      return appError;
    }
    throw new Error('expected a 503');
  };

  describe('.priceUsd(symbol, network, at)', () => {
    it('answers the median of the three sources', async () => {
      const price = await rates().priceUsd('BTC', 'BTC', clock);
      expect(price.toFixed()).to.equal('68255.55');
      expect(kraken.requests.get('/0/public/Trades?pair=XXBTZUSD&count=1')).to.equal(1);
      expect(binance.requests.get('/api/v3/aggTrades?symbol=BTCUSDT&limit=1')).to.equal(1);
      expect(coinbase.requests.get('/products/BTC-USD/ticker')).to.equal(1);
    });

    it('prices stablecoins from their markets, not at 1', async () => {
      kraken.markets.set('USDTZUSD', { price: '0.99950000', time: clock });
      coinbase.markets.set('USDT-USD', { price: '0.9997', time: clock });
      expect((await rates().priceUsd('USDT', 'TRX', clock)).toFixed()).to.equal('0.9996');
      // USDC: Kraken 0.9999, Coinbase 1.0000, Binance 0.9998 USDT x 0.9996 = 0.99940008.
      expect((await rates().priceUsd('USDC', 'ETH', clock)).toFixed()).to.equal('0.9999');
    });

    it('answers the mean of the other two when one source refuses connections', async () => {
      const price = await rates({ urls: { kraken: await refusedUrl(), binance: binance.url, coinbase: coinbase.url } }).priceUsd(
        'BTC',
        'BTC',
        clock,
      );
      // Binance's USDT converts with Coinbase's USDT/USD alone (1.0000): (68260 + 68255.55) / 2.
      expect(price.toFixed()).to.equal('68257.775');
    });

    it('answers the mean of the other two when one source answers HTTP 500', async () => {
      coinbase.mode = 500;
      const price = await rates().priceUsd('BTC', 'BTC', clock);
      expect(price.toFixed()).to.equal('68255.05');
    });

    it('leaves out a Coinbase price whose trade time is older than maxAgeSeconds', async () => {
      coinbase.markets.set('BTC-USD', { price: '60000.00', time: new Date(clock.getTime() - 61_000) });
      expect((await rates().priceUsd('BTC', 'BTC', clock)).toFixed()).to.equal('68255.05');
    });

    it("leaves out a Kraken price whose last trade, by Kraken's time, is older than maxAgeSeconds", async () => {
      // The answer is new; the trade it reports is not. Its price is within the spread, so only its age leaves it
      // out: with it, the median would be Coinbase's 68255.55. (Binance converts with Coinbase's USDT/USD alone.)
      kraken.markets.set('XXBTZUSD', { price: '68100.00000', time: ago(61) });
      expect((await rates().priceUsd('BTC', 'BTC', clock)).toFixed()).to.equal('68257.775');
    });

    it("leaves out a Binance price whose last trade, by Binance's time, is older than maxAgeSeconds", async () => {
      // Within the spread too: with it, the median would be Coinbase's 68255.55.
      binance.markets.set('BTCUSDT', { price: '68400.00000000', time: ago(61) });
      expect((await rates().priceUsd('BTC', 'BTC', clock)).toFixed()).to.equal('68252.825');
    });

    it('names a stale Kraken price in the 503 when too few sources are left', async () => {
      kraken.markets.set('XXBTZUSD', { price: '68250.10000', time: ago(300) });
      coinbase.mode = 500;
      const err = await unavailable(rates().priceUsd('BTC', 'BTC', clock));
      expect(err.message).to.match(/^No market price for BTC right now: 1 fresh source, 2 needed/);
      expect(err.message).to.include('kraken: its price is 300 s old, over 60 s');
      expect(err.message).to.include('coinbase answered HTTP 500');
      expect(err.headers['Retry-After']).to.equal('5');
    });

    it('names a stale Binance price in the 503 when too few sources are left', async () => {
      binance.markets.set('BTCUSDT', { price: '68260.00000000', time: ago(75) });
      kraken.mode = 500;
      const err = await unavailable(rates().priceUsd('BTC', 'BTC', clock));
      expect(err.message).to.match(/^No market price for BTC right now: 1 fresh source, 2 needed/);
      expect(err.message).to.include('binance: its price is 75 s old, over 60 s');
      expect(err.message).to.include('kraken answered HTTP 500');
    });

    it('names the stale source in the 503 when too few are left', async () => {
      coinbase.markets.set('BTC-USD', { price: '68255.55', time: new Date(clock.getTime() - 120_000) });
      binance.mode = 500;
      const err = await unavailable(rates().priceUsd('BTC', 'BTC', clock));
      expect(err.message).to.include('1 fresh source, 2 needed');
      expect(err.message).to.include('coinbase: its price is 120 s old, over 60 s');
      expect(err.message).to.include('binance answered HTTP 500');
      expect(err.headers['Retry-After']).to.equal('5');
    });

    it('leaves out a source further than maxSpreadPercent from the median', async () => {
      binance.markets.set('BTCUSDT', { price: '70000.00000000', time: ago(1) });
      expect((await rates().priceUsd('BTC', 'BTC', clock)).toFixed()).to.equal('68252.825');
    });

    it('answers 503 when the sources disagree and no two are within the spread', async () => {
      binance.markets.set('BTCUSDT', { price: '70000.00000000', time: ago(1) });
      coinbase.markets.set('BTC-USD', { price: '66000.00', time: clock });
      const err = await unavailable(rates().priceUsd('BTC', 'BTC', clock));
      expect(err.message).to.match(/1 of 3 fresh sources within 0.4% of their median, 2 needed/);
      expect(err.message).to.include('binance: its price 70000 is 2.56% from the median 68250.1, over 0.4%');
      expect(err.message).to.include('coinbase: its price 66000 is 3.3% from the median 68250.1, over 0.4%');
    });

    describe('with exactly two fresh sources', () => {
      beforeEach(() => {
        coinbase.mode = 500;
      });

      it('answers their mean when they are within maxSpreadPercent of each other', async () => {
        // 68500 is 0.366% above 68250.1 (Binance converts with Kraken's USDT/USD, 1).
        binance.markets.set('BTCUSDT', { price: '68500.00000000', time: ago(1) });
        expect((await rates().priceUsd('BTC', 'BTC', clock)).toFixed()).to.equal('68375.05');
      });

      it('answers 503 naming both when they are further apart than maxSpreadPercent, though each is within it of their mean', async () => {
        // 0.51% apart: each is 0.26% from their mean, which the median rule of three would have accepted.
        binance.markets.set('BTCUSDT', { price: '68600.00000000', time: ago(1) });
        const err = await unavailable(rates().priceUsd('BTC', 'BTC', clock));
        expect(err.message).to.match(
          /^No market price for BTC right now: the only 2 fresh sources, kraken and binance, are 0.51% apart \(of the lower price\), over 0.4% \(/,
        );
        expect(err.message).to.include("kraken: its price 68250.1 disagrees with binance's 68600");
        expect(err.message).to.include('coinbase answered HTTP 500');
        expect(err.headers).to.deep.equal({ 'Retry-After': '5' });
      });

      it('holds a configured spread: 1% lets the same two agree', async () => {
        binance.markets.set('BTCUSDT', { price: '68600.00000000', time: ago(1) });
        expect((await rates({ maxSpreadPercent: '1' }).priceUsd('BTC', 'BTC', clock)).toFixed()).to.equal('68425.05');
      });

      it('answers 503 when the two left after a stale one disagree', async () => {
        coinbase.mode = 'ok';
        coinbase.markets.set('BTC-USD', { price: '68255.55', time: ago(90) });
        kraken.markets.set('XXBTZUSD', { price: '67900.00000', time: ago(2) });
        const err = await unavailable(rates().priceUsd('BTC', 'BTC', clock));
        expect(err.message).to.include('the only 2 fresh sources, kraken and binance, are 0.53% apart');
        expect(err.message).to.include('coinbase: its price is 90 s old, over 60 s');
      });
    });

    it('answers 503 service_unavailable with Retry-After when every source is down', async () => {
      kraken.mode = 500;
      coinbase.mode = 500;
      const logged: Array<{ source: string; detail: string }> = [];
      const logger = { warn: (fields: { source: string; detail: string }) => void logged.push(fields) };
      const err = await unavailable(
        rates({ urls: { kraken: kraken.url, binance: await refusedUrl(), coinbase: coinbase.url }, logger }).priceUsd('BTC', 'BTC', clock),
      );
      // The full story, once per source and market, goes to the log.
      expect(logged.find((l) => l.source === 'coinbase')?.detail).to.include('answered HTTP 500: {"message":"Internal server error"}');
      expect(logged.find((l) => l.source === 'binance')?.detail).to.include('ECONNREFUSED');
      expect(err.headers).to.deep.equal({ 'Retry-After': '5' });
      expect(err.message).to.match(/^No market price for BTC right now: 0 fresh sources, 2 needed/);
      expect(err.message).to.include('kraken answered HTTP 500');
      expect(err.message).to.include('coinbase answered HTTP 500');
      expect(err.message).to.include('binance is unreachable');
      // In our words only: the provider's body and the driver's error code go to the log.
      expect(err.message).not.to.include('Internal server error');
      expect(err.message).not.to.include('ECONNREFUSED');
    });

    it('says when a source does not answer within the fetch timeout', async () => {
      kraken.mode = 'hang';
      const price = await rates({ fetchTimeoutSeconds: 0.2 }).priceUsd('ETH', 'ETH', clock);
      // Binance's ETH converts with Coinbase's USDT/USD alone: (3411 + 3410.91) / 2.
      expect(price.toFixed()).to.equal('3410.955');
      binance.mode = 500;
      const err = await unavailable(rates({ fetchTimeoutSeconds: 0.2 }).priceUsd('ETH', 'ETH', clock));
      expect(err.message).to.include('kraken did not answer within 200 ms');
    });

    describe('Binance USDT quotes', () => {
      it('converts them to USD with the USDT/USD median of the other sources', async () => {
        kraken.markets.set('USDTZUSD', { price: '0.99800000', time: ago(1) });
        coinbase.markets.set('USDT-USD', { price: '0.9980', time: clock });
        kraken.markets.set('XXBTZUSD', { price: '67870.00000', time: ago(1) });
        binance.markets.set('BTCUSDT', { price: '68000.00000000', time: ago(1) });
        // Binance: 68000 x 0.998 = 67864; the median of Kraken's and Binance's is 67867.
        const price = await rates({ sources: ['kraken', 'binance'] }).priceUsd('BTC', 'BTC', clock);
        expect(price.toFixed()).to.equal('67867');
      });

      it('leave Binance out, and say why, when USDT/USD has no price', async () => {
        kraken.markets.delete('USDTZUSD');
        coinbase.markets.delete('USDT-USD');
        coinbase.mode = 500;
        const err = await unavailable(rates().priceUsd('BTC', 'BTC', clock));
        expect(err.message).to.include('binance quotes BTC in USDT, and USDT/USD has no price to convert it');
        expect(err.message).to.include('kraken answered an error');
        expect(err.message).not.to.include('EQuery');
      });

      it('are as old as the USDT/USD price they were converted with', async () => {
        kraken.mode = 500;
        coinbase.markets.set('USDT-USD', { price: '1.0000', time: new Date(clock.getTime() - 90_000) });
        const err = await unavailable(rates().priceUsd('BTC', 'BTC', clock));
        expect(err.message).to.include('coinbase: its price is 90 s old, over 60 s');
        expect(err.message).to.include('binance quotes BTC in USDT');
      });
    });

    it('answers 503 without Retry-After and without asking anyone for an asset no source lists', async () => {
      const err = await unavailable(rates().priceUsd('ZANO', 'ZANO', clock));
      expect(err.message).to.equal(
        'No market price for ZANO on ZANO: none of the configured sources (kraken, binance, coinbase, bitfinex) lists it, and a price needs 2.',
      );
      expect(err.headers).to.deep.equal({});
      expect(kraken.requestCount() + binance.requestCount() + coinbase.requestCount()).to.equal(0);
    });

    it('answers 503 for an asset only one configured source lists', async () => {
      const err = await unavailable(rates({ sources: ['kraken', 'coinbase'] }).priceUsd('TRX', 'TRX', clock));
      expect(err.message).to.include('only kraken of the configured sources (kraken, coinbase) lists it');
    });

    describe('cache', () => {
      it('asks each provider once within cacheSeconds and again after it', async () => {
        const adapter = rates({ cacheSeconds: 5 });
        await adapter.priceUsd('BTC', 'BTC', clock);
        clock = new Date(START.getTime() + 4_900);
        await adapter.priceUsd('BTC', 'BTC', clock);
        expect([kraken.requestCount(), binance.requestCount(), coinbase.requestCount()]).to.deep.equal([2, 1, 2]); // BTC, USDT; BTC; BTC, USDT
        clock = new Date(START.getTime() + 5_000);
        await adapter.priceUsd('BTC', 'BTC', clock);
        expect([kraken.requestCount(), binance.requestCount(), coinbase.requestCount()]).to.deep.equal([4, 2, 4]);
      });

      it('keeps one request in flight per source and market, shared by concurrent prices', async () => {
        const adapter = rates();
        await Promise.all([
          adapter.priceUsd('BTC', 'BTC', clock),
          adapter.priceUsd('BTC', 'BTC', clock),
          adapter.priceUsd('ETH', 'ETH', clock),
        ]);
        expect(kraken.requests.get('/0/public/Trades?pair=XXBTZUSD&count=1')).to.equal(1);
        expect(kraken.requests.get('/0/public/Trades?pair=USDTZUSD&count=1')).to.equal(1);
        expect(binance.requests.get('/api/v3/aggTrades?symbol=BTCUSDT&limit=1')).to.equal(1);
        expect(coinbase.requests.get('/products/USDT-USD/ticker')).to.equal(1);
      });

      it('remembers a failure for cacheSeconds too, so a down provider is not asked on every quote', async () => {
        coinbase.mode = 500;
        const adapter = rates();
        await adapter.priceUsd('BTC', 'BTC', clock);
        await adapter.priceUsd('BTC', 'BTC', clock);
        expect(coinbase.requests.get('/products/BTC-USD/ticker')).to.equal(1);
      });

      it('never serves a cached price once it is older than maxAgeSeconds', async () => {
        // Coinbase's last trade is 58 s old: fresh now, stale 3 s later, still inside the cache time.
        coinbase.markets.set('BTC-USD', { price: '68255.55', time: new Date(clock.getTime() - 58_000) });
        binance.mode = 500;
        const adapter = rates({ cacheSeconds: 5 });
        expect((await adapter.priceUsd('BTC', 'BTC', clock)).toFixed()).to.equal('68252.825');
        clock = new Date(START.getTime() + 3_000);
        const err = await unavailable(adapter.priceUsd('BTC', 'BTC', clock));
        expect(err.message).to.include('coinbase: its price is 61 s old, over 60 s');
        expect(coinbase.requests.get('/products/BTC-USD/ticker')).to.equal(1);
      });
    });
  });

  describe('XMR: Kraken and Bitfinex (Binance and Coinbase list none)', () => {
    let bitfinex: FakeProvider;
    beforeEach(async () => {
      bitfinex = await startFakeProvider('bitfinex');
      kraken.markets.set('XXMRZUSD', { price: '152.34000000', time: ago(1) });
      bitfinex.markets.set('tXMRUSD', { price: '152.30', time: ago(2) });
    });
    afterEach(() => bitfinex.close());
    const withBitfinex = (options: MarketRatesOptions = {}) =>
      rates({ urls: { kraken: kraken.url, binance: binance.url, coinbase: coinbase.url, bitfinex: bitfinex.url }, ...options });

    it("prices XMR from the two, reading Bitfinex's trade history (its price a JSON number, taken as written)", async () => {
      expect((await withBitfinex().priceUsd('XMR', 'XMR', clock)).toFixed()).to.equal('152.32');
      expect(bitfinex.requests.get('/v2/trades/tXMRUSD/hist?limit=1')).to.equal(1);
      // Binance and Coinbase are not asked for a market they do not list, and Bitfinex for none but XMR.
      expect([...binance.requests.keys(), ...coinbase.requests.keys()]).to.deep.equal([]);
      await withBitfinex().priceUsd('BTC', 'BTC', clock);
      expect([...bitfinex.requests.keys()]).to.deep.equal(['/v2/trades/tXMRUSD/hist?limit=1']);
    });

    it('has no XMR price when Bitfinex fails or is stale: one source is not a price', async () => {
      bitfinex.mode = 500;
      expect((await unavailable(withBitfinex().priceUsd('XMR', 'XMR', clock))).message).to.include('bitfinex');
      bitfinex.mode = 'ok';
      bitfinex.markets.set('tXMRUSD', { price: '152.30', time: ago(61) });
      expect((await unavailable(withBitfinex({ cacheSeconds: 0.001 }).priceUsd('XMR', 'XMR', clock))).message).to.include(
        'bitfinex: its price is 61 s old',
      );
    });

    it('refuses a Bitfinex answer that is not a trade, or whose price is not a positive decimal', async () => {
      for (const price of ['-1', '0', '1e3', '"152.3"']) {
        bitfinex.markets.set('tXMRUSD', { price, time: ago(1) });
        const err = await unavailable(withBitfinex({ cacheSeconds: 0.001 }).priceUsd('XMR', 'XMR', clock));
        expect(err.message, price).to.include('bitfinex');
      }
    });
  });

  it('prices a pegged stablecoin no provider lists at its peg (RATES_PEGGED), asking no provider, and others as before', async () => {
    const adapter = rates({ pegged: { fUSD: '1' } });
    expect((await adapter.priceUsd('fUSD', 'ZANO', clock)).toString()).to.equal('1');
    expect([...kraken.requests.keys(), ...binance.requests.keys(), ...coinbase.requests.keys()]).to.deep.equal([]);
    const zano = await unavailable(adapter.priceUsd('ZANO', 'ZANO', clock));
    expect(zano.message).to.match(/No market price for ZANO on ZANO: none of the configured sources/);
  });
});
