/**
 * The chain boundary, through the server process on real nodes (litecoind, anvil): what the public sees of a
 * failing node or price server, and what the service does with answers it cannot believe.
 *
 * The server reaches ETH through a proxy whose URL carries an RPC provider's key in its path (`/v3/<key>`) and
 * LTC through a proxy of the watch-only wallet's URL (credentials, host, port, wallet name). Each fault the
 * proxies or the price servers make (no answer, NaN, 1e400, a negative balance, a wrong type, 10 MB) must turn
 * the network or source unhealthy with a reason in the service's words, answer quotes 503 (never 500), store
 * nothing, and show none of the URL's parts in any public answer; the log has the URL with its secrets removed.
 * A node on another chain than ETH_CHAIN_ID is `chain id mismatch`.
 *
 * Skipped, with the reason printed, where litecoind, anvil or PostgreSQL is missing.
 */
import { expect } from 'chai';
import pg from 'pg';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEY_1 } from '../support/anvil.js';
import { createDevnetPartner, startDevnet, startDevnetServer, type Devnet, type DevnetServer } from '../support/devnet.js';
import { readJson } from '../support/http.js';
import { devnetClient, DEVNET_ADMIN_URL, eventually, ltcToUsdt, skipWithoutDevnet } from '../support/production.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';

/** An RPC provider's API key, as Infura and Alchemy put it in the URL's path. */
const PROVIDER_KEY = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';

type NetworkHealth = { network: string; status: 'ok' | 'fail'; reason?: string; height?: number; balance: string };

describe('the chain boundary on real nodes (the server process)', function () {
  this.timeout(240_000);
  let devnet: Devnet;
  let server: DevnetServer;
  let eth: RpcProxy;
  let ltc: RpcProxy;
  let ltcUrl: URL;
  let client: ReturnType<typeof devnetClient>;
  let db: pg.Client;
  /** Every part of a node URL that must never be public. */
  let secrets: string[];

  before(async function () {
    await skipWithoutDevnet(this);
    devnet = await startDevnet({ adminUrl: DEVNET_ADMIN_URL });
    eth = await startRpcProxy(devnet.anvil.url, { servePath: `/v3/${PROVIDER_KEY}` });
    ltc = await startRpcProxy(devnet.env(0).LTC_RPC_URL);
    ltcUrl = new URL(ltc.url);
    const ethUrl = new URL(eth.url);
    expect(eth.url).to.contain(PROVIDER_KEY);
    secrets = [
      PROVIDER_KEY,
      ethUrl.host,
      ltcUrl.host,
      decodeURIComponent(ltcUrl.username),
      decodeURIComponent(ltcUrl.password),
      ltcUrl.pathname.split('/').pop()!,
      '127.0.0.1',
    ];
    // Probes every second (5 by default): each fault below is seen, and its end, within a second or two.
    server = await startDevnetServer(devnet, {
      // The tests poll quotes until a fault shows: more than the 120 a minute a partner may ask by default.
      env: {
        ETH_RPC_URL: eth.url,
        LTC_RPC_URL: ltc.url,
        LOG_LEVEL: 'info',
        NETWORK_PROBE_SECONDS: '1',
        RATE_LIMIT_QUOTES_PER_MINUTE: '6000',
        RATE_LIMIT_SIGNED_PER_MINUTE: '6000',
        // Each quote that succeeds reserves its LTC for its lifetime: let them all draw on the whole hot wallet.
        LIQUIDITY_PARTNER_SHARE_PERCENT: '100',
      },
    });
    client = devnetClient(server, await createDevnetPartner(devnet, 'Boundary'));
    db = new pg.Client({ connectionString: devnet.database.url });
    await db.connect();
  });

  after(async () => {
    await db?.end();
    await server?.stop();
    await eth?.close();
    await ltc?.close();
    await devnet?.stop();
  });

  const health = async () => {
    const res = await readJson<{ checks: { networks: NetworkHealth[] } }>(fetch(`${server.baseUrl}/health`));
    expect(res.status, res.text).to.equal(200);
    expectNoSecret(res.text, 'GET /health');
    return res.body.checks.networks;
  };
  const networkState = async (network: string) => (await health()).find((n) => n.network === network)!;
  /** Waits until `network` is shown as `status` (with `reason`), and returns it. */
  const shownAs = (network: string, status: 'ok' | 'fail', reason?: string) =>
    eventually(
      async () => {
        const state = await networkState(network);
        return state.status === status && (reason === undefined || state.reason === reason) ? state : undefined;
      },
      30_000,
      async () => JSON.stringify(await health()),
    );
  const expectNoSecret = (text: string, where: string) => {
    for (const secret of secrets) expect(text, `${where} shows ${JSON.stringify(secret)}`).not.to.contain(secret);
    // The proxies' ports, as numbers of their own (not as digits inside another number or a time).
    for (const port of [new URL(eth.url).port, ltcUrl.port]) {
      expect(text, `${where} shows the port ${port}`).not.to.match(new RegExp(`(^|[^0-9])${port}([^0-9]|$)`));
    }
  };
  const ethQuote = () =>
    client.send<{ error: { code: string; message: string } }>('POST', '/api/v1/quotes', {
      sourceAsset: 'ETH',
      sourceNetwork: 'ETH',
      destinationAsset: 'LTC',
      destinationNetwork: 'LTC',
      sourceAmount: '0.01',
      refundMode: 'address',
      refundAddress: privateKeyToAccount(ANVIL_KEY_1).address,
    });
  const ltcQuote = () =>
    client.send<{ error: { code: string; message: string } }>('POST', '/api/v1/quotes', ltcToUsdt('0.5', devnet.wallets.customerAddress));
  /** The quote answers 503 naming `reason`, with Retry-After, and shows no part of a node URL. */
  const refusedFor = async (quote: () => ReturnType<typeof ethQuote>, network: string, reason: string) => {
    const res = await quote();
    expect(res.status, res.text).to.equal(503);
    expect(res.body.error.code).to.equal('service_unavailable');
    expect(res.body.error.message).to.contain(`The ${network} network is unavailable for new quotes: ${reason}.`);
    expectNoSecret(res.text, 'POST /quotes');
  };
  /** Asks ethQuote once a second until it answers `status` (30 s at most); returns that answer. */
  const quoteUntil = async (status: number) => {
    for (let tries = 0; ; tries++) {
      const quoted = await ethQuote();
      if (quoted.status === status) return quoted;
      if (tries === 30) throw new Error(`no ${status} to a quote in 30 s; the last answer: ${quoted.status} ${quoted.text}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  };
  /** An answer of the JSON-RPC `id` with `result` written as raw JSON text (so `1e400` stays what it is). */
  const rawResult = (result: string) => (id: unknown) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
  /** A Bitcoin Core answer (its JSON-RPC 1.0 shape) with `result` as raw JSON text. */
  const rawCoreResult = (result: string) => (id: unknown) => `{"result":${result},"error":null,"id":${JSON.stringify(id)}}`;

  it('shows both networks healthy, with no reason and nothing of their URLs', async () => {
    const eth = await shownAs('ETH', 'ok');
    const ltc = await shownAs('LTC', 'ok');
    expect(eth).not.to.have.property('reason');
    expect(ltc).not.to.have.property('reason');
    expect((await ethQuote()).status).to.equal(200);
  });

  it('a node that cuts every connection: `node unreachable` on /health and in the quote 503; the log has the URL with its key removed', async () => {
    const restore = eth.answerWith('eth_getBlockByNumber', () => null);
    try {
      await shownAs('ETH', 'fail', 'node unreachable');
      await refusedFor(ethQuote, 'ETH', 'node unreachable');
    } finally {
      restore();
    }
    await shownAs('ETH', 'ok');
    const log = server.child.output();
    expect(log).to.contain('network ETH is unhealthy');
    expect(log).to.contain('/v3/***');
    expect(log, 'the log shows the provider key').not.to.contain(PROVIDER_KEY);
    expect(log, 'the log shows the LTC RPC password').not.to.contain(decodeURIComponent(ltcUrl.password));
  });

  for (const [what, method, answer, reason] of [
    [
      'a block number of 1e400',
      'eth_getBlockByNumber',
      rawResult('{"number":1e400,"timestamp":"0x1","hash":"0x00","transactions":[]}'),
      'malformed answer',
    ],
    [
      'a block number that is "NaN"',
      'eth_getBlockByNumber',
      rawResult('{"number":"NaN","timestamp":"0x1","transactions":[]}'),
      'malformed answer',
    ],
    ['a block of the wrong type', 'eth_getBlockByNumber', rawResult('"a block"'), 'malformed answer'],
    ['a negative balance', 'eth_getBalance', rawResult('"-0x1"'), 'malformed answer'],
    ['a 10 MB balance', 'eth_getBalance', rawResult(JSON.stringify('0'.repeat(10 * 1024 * 1024))), 'answer too large'],
    // A block may be large (a scan reads blocks in batches): the limit for it is 32 MB.
    ['a 40 MB block', 'eth_getBlockByNumber', rawResult(JSON.stringify('0'.repeat(40 * 1024 * 1024))), 'answer too large'],
    ['a body that is not JSON', 'eth_getBalance', () => '<html>502 Bad Gateway</html>', 'malformed answer'],
  ] as const) {
    it(`an ETH node answering ${what}: unhealthy (${reason}), quotes 503, never a 500`, async () => {
      const restore = eth.answerWith(method, answer);
      try {
        await shownAs('ETH', 'fail', reason);
        await refusedFor(ethQuote, 'ETH', reason);
      } finally {
        restore();
      }
      await shownAs('ETH', 'ok');
    });
  }

  for (const [what, answer] of [
    ['a balance of 1e400', rawCoreResult('{"mine":{"trusted":1e400,"untrusted_pending":0,"immature":0}}')],
    ['a negative balance', rawCoreResult('{"mine":{"trusted":-5.0,"untrusted_pending":0,"immature":0}}')],
    ['a balance that is a word', rawCoreResult('{"mine":{"trusted":"lots","untrusted_pending":0,"immature":0}}')],
    ['a balance with 9 decimal places', rawCoreResult('{"mine":{"trusted":1.123456789,"untrusted_pending":0,"immature":0}}')],
  ] as const) {
    it(`a Litecoin wallet answering ${what}: LTC unhealthy (malformed answer), quotes 503, and no NaN anywhere`, async () => {
      const restore = ltc.answerWith('getbalances', answer);
      try {
        const state = await shownAs('LTC', 'fail', 'malformed answer');
        expect(state.balance).to.equal('unknown');
        await refusedFor(ltcQuote, 'LTC', 'malformed answer');
      } finally {
        restore();
      }
      await shownAs('LTC', 'ok');
    });
  }

  it('a Litecoin scan that lists an output of 1e400: the scan is refused, nothing is recorded, and LTC is unhealthy until a scan succeeds', async () => {
    const before = await db.query<{ count: string }>('select count(*) from chain_outputs');
    // The last block must be the node's: the watcher reads its header before the entries.
    const best = await devnet.litecoin.call<string>('getbestblockhash');
    const restore = ltc.answerWith(
      'listsinceblock',
      rawCoreResult(
        `{"transactions":[{"address":"${devnet.wallets.customerAddress}","category":"receive","amount":1e400,"vout":0,"confirmations":1,"time":1700000000,"timereceived":1700000000,"blockhash":"${best}","blockheight":1,"txid":"${'cd'.repeat(32)}"}],"removed":[],"lastblock":"${best}"}`,
      ),
    );
    try {
      await shownAs('LTC', 'fail', 'malformed answer');
    } finally {
      restore();
    }
    await shownAs('LTC', 'ok');
    const after = await db.query<{ count: string }>('select count(*) from chain_outputs');
    expect(after.rows[0].count).to.equal(before.rows[0].count);
    const nan = await db.query<{ count: string }>("select count(*) from chain_outputs where amount = 'NaN'::numeric");
    expect(nan.rows[0].count).to.equal('0');
  });

  it('price servers answering 10 MB, a NaN price and a negative one: the quote 503 says so in our words, without their URLs', async () => {
    // ETH to LTC: ETH keeps two good sources (Binance, Coinbase); LTC has none left.
    devnet.market.kraken.mode = 'huge';
    const binance = devnet.market.binance.markets.get('LTCUSDT')!;
    const coinbase = devnet.market.coinbase.markets.get('LTC-USD')!;
    const [binancePrice, coinbasePrice] = [binance.price, coinbase.price];
    binance.price = 'NaN';
    coinbase.price = '-80.05';
    try {
      // The rates cache answers for a few seconds: wait for the fault to be asked (a quote a second: each one
      // that succeeds meanwhile reserves LTC).
      const res = await quoteUntil(503);
      expect(res.body.error.code).to.equal('service_unavailable');
      expect(res.body.error.message).to.contain('No market price for LTC right now');
      expect(res.body.error.message).to.contain('kraken gave an answer too large');
      expect(res.body.error.message).to.contain('binance gave a malformed answer');
      expect(res.body.error.message).to.contain('coinbase gave a malformed answer');
      expectNoSecret(res.text, 'POST /quotes');
      for (const provider of Object.values(devnet.market)) expect(res.text).not.to.contain(new URL(provider.url).host);
    } finally {
      devnet.market.kraken.mode = 'ok';
      binance.price = binancePrice;
      coinbase.price = coinbasePrice;
    }
    await quoteUntil(200);
  });

  describe('an ETH node on another chain than ETH_CHAIN_ID', () => {
    let pinned: DevnetServer;
    after(async () => {
      await pinned?.stop();
    });

    it('is unhealthy with `chain id mismatch`: quotes 503, and the log names both ids', async () => {
      // anvil is chain 31337; this server is told to expect Ethereum's mainnet.
      pinned = await startDevnetServer(devnet, { env: { ETH_RPC_URL: eth.url, ETH_CHAIN_ID: '1' } });
      const res = await readJson<{ checks: { networks: NetworkHealth[] } }>(fetch(`${pinned.baseUrl}/health`));
      const state = res.body.checks.networks.find((n) => n.network === 'ETH')!;
      expect(state, res.text).to.include({ status: 'fail', reason: 'chain id mismatch' });
      expectNoSecret(res.text, 'GET /health');
      const partner = devnetClient(pinned, await createDevnetPartner(devnet, 'Pinned'));
      const quote = await partner.send<{ error: { message: string } }>('POST', '/api/v1/quotes', {
        sourceAsset: 'LTC',
        sourceNetwork: 'LTC',
        destinationAsset: 'ETH',
        destinationNetwork: 'ETH',
        sourceAmount: '0.5',
        refundMode: 'address',
        refundAddress: devnet.wallets.customerAddress,
      });
      expect(quote.status, quote.text).to.equal(503);
      expect(quote.body.error.message).to.contain('The ETH network is unavailable for new quotes: chain id mismatch.');
      expect(pinned.child.output()).to.contain('the node reports chain id 31337, not 1 (ETH_CHAIN_ID)');
    });
  });

  describe('a Litecoin node on another chain than LTC_CHAIN', () => {
    let pinned: DevnetServer;
    after(async () => {
      await pinned?.stop();
    });

    it('is unhealthy with `chain mismatch`, and the log names both chains', async () => {
      // The devnet's litecoind is on regtest; this server is told it serves Litecoin's testnet.
      pinned = await startDevnetServer(devnet, { env: { LTC_CHAIN: 'test' } });
      const res = await readJson<{ checks: { networks: NetworkHealth[] } }>(fetch(`${pinned.baseUrl}/health`));
      const state = res.body.checks.networks.find((n) => n.network === 'LTC')!;
      expect(state, res.text).to.include({ status: 'fail', reason: 'chain mismatch' });
      expect(
        res.body.checks.networks.find((n) => n.network === 'ETH'),
        res.text,
      ).to.include({ status: 'ok' });
      expect(pinned.child.output()).to.contain('LTC: the node is on chain regtest, not test (LTC_CHAIN)');
    });
  });
});
