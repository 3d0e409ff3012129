import { expect } from 'chai';
import { parseMarketRatesEnv } from '../../../../server/adapters/market/config.js';

describe('parseMarketRatesEnv(env)', () => {
  it('defaults to all three sources, their public URLs, 60 s and 1%', () => {
    expect(parseMarketRatesEnv({})).to.deep.equal({
      options: { sources: ['kraken', 'binance', 'coinbase'], urls: {}, maxAgeSeconds: 60, maxSpreadPercent: '1', pegged: {} },
      problems: [],
    });
  });

  it('reads RATES_SOURCES, the URL variables, RATES_MAX_AGE_SECONDS and RATES_MAX_SPREAD_PERCENT', () => {
    const { options, problems } = parseMarketRatesEnv({
      RATES_SOURCES: ' Coinbase, kraken ',
      KRAKEN_URL: 'http://127.0.0.1:9001',
      COINBASE_URL: 'https://cb.example',
      RATES_MAX_AGE_SECONDS: '30',
      RATES_MAX_SPREAD_PERCENT: '0.5',
      RATES_PEGGED: 'fUSD:1, XUSD:1.0001',
    });
    expect(problems).to.deep.equal([]);
    expect(options).to.deep.equal({
      sources: ['coinbase', 'kraken'],
      urls: { kraken: 'http://127.0.0.1:9001', coinbase: 'https://cb.example' },
      maxAgeSeconds: 30,
      maxSpreadPercent: '0.5',
      pegged: { fUSD: '1', XUSD: '1.0001' },
    });
  });

  const bad: Array<[string, Record<string, string>, RegExp]> = [
    ['an unknown source', { RATES_SOURCES: 'kraken,bitstamp' }, /RATES_SOURCES="kraken,bitstamp" names unknown sources \(bitstamp\)/],
    ['a single source', { RATES_SOURCES: 'kraken,kraken' }, /must name at least two sources/],
    [
      'a URL that is not http(s)',
      { BINANCE_URL: 'ftp://x' },
      /BINANCE_URL="ftp:\/\/x" must be an http:\/\/ or https:\/\/ base URL, e.g. https:\/\/api.binance.com/,
    ],
    ['a URL that is not a URL', { KRAKEN_URL: 'kraken' }, /KRAKEN_URL="kraken" must be/],
    [
      'a max age within the cache time',
      { RATES_MAX_AGE_SECONDS: '5' },
      /RATES_MAX_AGE_SECONDS="5" must be a whole number of seconds above 5/,
    ],
    ['a max age that is not a number', { RATES_MAX_AGE_SECONDS: '1m' }, /RATES_MAX_AGE_SECONDS="1m"/],
    ['a zero spread', { RATES_MAX_SPREAD_PERCENT: '0' }, /RATES_MAX_SPREAD_PERCENT="0" must be a positive decimal percentage/],
    ['a spread that is not a decimal', { RATES_MAX_SPREAD_PERCENT: '1%' }, /RATES_MAX_SPREAD_PERCENT="1%"/],
    ['a peg that is not SYMBOL:price', { RATES_PEGGED: 'fUSD=1' }, /RATES_PEGGED entry "fUSD=1" must be SYMBOL:price in USD/],
    ['a zero peg', { RATES_PEGGED: 'fUSD:0' }, /RATES_PEGGED entry "fUSD:0"/],
    ['a peg of a market-priced symbol', { RATES_PEGGED: 'USDT:1' }, /RATES_PEGGED names USDT, which the market sources price/],
  ];
  for (const [name, env, problem] of bad) {
    it(`reports ${name}`, () => {
      const { problems } = parseMarketRatesEnv(env);
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(problem);
    });
  }
});
