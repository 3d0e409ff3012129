import { expect } from 'chai';
import { parseMarketRatesEnv, spreadFeeProblems } from '../../../../server/adapters/market/config.js';
import { loadSandboxCatalog } from '../../../../server/adapters/sandbox/catalog.js';

describe('parseMarketRatesEnv(env)', () => {
  it('defaults to all four sources, their public URLs, 60 s and 0.4%', () => {
    expect(parseMarketRatesEnv({})).to.deep.equal({
      options: { sources: ['kraken', 'binance', 'coinbase', 'bitfinex'], urls: {}, maxAgeSeconds: 60, maxSpreadPercent: '0.4', pegged: {} },
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

describe('spreadFeeProblems(maxSpreadPercent, catalog)', () => {
  const catalog = (fixedPercent: string, floatingPercent: string, feePercent: string) => ({
    fees: { fixedPercent, floatingPercent, floatingSlippagePercent: '1.5' },
    routes: { feePercent, feeFloorUsd: '1', minSwapUsd: '25', maxAutoSwapUsd: '10000' },
  });

  it('accepts the default spread against the catalogue production serves', () => {
    expect(spreadFeeProblems(parseMarketRatesEnv({}).options.maxSpreadPercent, loadSandboxCatalog())).to.deep.equal([]);
  });

  it('accepts a spread below every percentage fee', () => {
    expect(spreadFeeProblems('0.49', catalog('1.0', '0.5', '1.0'))).to.deep.equal([]);
  });

  const refused: Array<[string, string, ReturnType<typeof catalog>, RegExp]> = [
    ['equal to the smallest fee', '0.5', catalog('1.0', '0.5', '1.0'), /\(fees.floatingPercent = 0.5\)/],
    ['above the smallest fee, the fixed one', '0.8', catalog('0.75', '0.9', '1.0'), /\(fees.fixedPercent = 0.75\)/],
    ['above the smallest fee, the route one', '0.3', catalog('1.0', '0.5', '0.25'), /\(routes.feePercent = 0.25\)/],
    ['against a free rate type', '0.01', catalog('1.0', '0', '1.0'), /\(fees.floatingPercent = 0\)/],
  ];
  for (const [name, spread, fees, smallest] of refused) {
    it(`refuses a spread ${name}`, () => {
      const problems = spreadFeeProblems(spread, fees);
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(
        new RegExp(`^RATES_MAX_SPREAD_PERCENT=${spread} must be below the smallest percentage fee the catalogue charges`),
      );
      expect(problems[0]).to.match(smallest);
    });
  }
});
