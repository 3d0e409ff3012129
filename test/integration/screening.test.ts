/**
 * Address screening (docs/screening.md): a local screening provider (node:http on a free port) and a denylist
 * file. Denied destinations and refund addresses are 403 address_denied at quote, swap and route creation; a
 * deposit from a denied sender holds the swap in review (screening_hold) with no refund committed; a provider
 * that times out or answers malformed counts as SCREENING_FAIL_MODE says, closed by default and open when set.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { expectError } from '../support/http.js';
import { freshZanoWallet, signRouteRequest } from '../support/routes.js';
import { allow, deny, startScreeningProvider, type ProviderAnswer } from '../support/screening-provider.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { btcToUsdt, ETH_ADDRESS, swapBody, swapClient, type Swap } from '../support/swaps.js';

// Addresses the denylist file names: one on ETH only, one on every network.
const ETH_ONLY = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const EVERYWHERE = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
// Denied by the provider.
const PROVIDER_DENIED = '0x52908400098527886E0F7030069857D2E4169EE7';
// A BTC sender on the denylist (BTC: only).
const DENYLISTED_SENDER = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

describe('address screening', function () {
  this.timeout(120_000);
  let provider: Awaited<ReturnType<typeof startScreeningProvider>>;
  let dir: string;
  let closed: TestServer;
  let open: TestServer;
  let client: ReturnType<typeof swapClient>;
  let openClient: ReturnType<typeof swapClient>;
  let user: string;

  before(async () => {
    provider = await startScreeningProvider();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pss-screening-'));
    const denylist = path.join(dir, 'denylist.txt');
    // Case differs from the requests on purpose: EVM hex and bech32 compare case-insensitively.
    await fs.writeFile(
      denylist,
      `# compliance list\nETH:${ETH_ONLY.toLowerCase()}\n\n${EVERYWHERE.toUpperCase()}\nBTC:${DENYLISTED_SENDER}\n`,
    );
    const env = {
      SCREENING_URL: provider.url,
      SCREENING_DENYLIST_FILE: denylist,
      SCREENING_TIMEOUT_MS: '300',
      RATE_LIMIT_QUOTES_PER_MINUTE: '10000',
      RATE_LIMIT_SWAPS_PER_MINUTE: '10000',
    };
    // SCREENING_FAIL_MODE unset: closed, the default.
    closed = await startTestServer({ env });
    open = await startTestServer({ env: { ...env, SCREENING_FAIL_MODE: 'open' } });
    const signer = await closed.createSigner('Merchant');
    user = signer.user ?? 'customer-1';
    client = swapClient(closed.origin, signer);
    openClient = swapClient(open.origin, await open.createSigner('Merchant'));
  });
  beforeEach(() => {
    provider.answer = (subject) => (subject.address === PROVIDER_DENIED ? deny('OFAC SDN list') : allow);
  });
  after(async () => {
    await closed?.close();
    await open?.close();
    await provider?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  // The trail entries screening wrote about `target`, newest first.
  const screeningTrail = (server: TestServer, target: string) =>
    server.knex('operator_actions').where({ action: 'screening.verdict', target }).orderBy('id', 'desc');

  // POST /swaps from a fresh quote of `request`, with `extra` in the swap body.
  const createSwap = async (c: ReturnType<typeof swapClient>, extra: Record<string, unknown>, request = btcToUsdt()) => {
    const quote = await c.quote(request);
    return c.createRaw(swapBody(quote, request, extra));
  };

  describe('at creation', () => {
    it('refuses a destination the provider denies with 403 address_denied at POST /swaps, naming the field', async () => {
      const res = await createSwap(client, { destinationAddress: PROVIDER_DENIED });
      expectError(res, 403, 'address_denied');
      const { error } = res.body as unknown as { error: { message: string; details: Record<string, unknown> } };
      expect(error.details).to.deep.equal({ field: 'destinationAddress', role: 'destination', network: 'ETH' });
      // The provider's reason is for operators, not partners.
      expect(error.message).not.to.include('OFAC');
      expect(provider.asked).to.deep.include({ network: 'ETH', address: PROVIDER_DENIED, role: 'destination' });
      const [entry] = await screeningTrail(closed, `ETH:${PROVIDER_DENIED}`);
      expect(entry).to.include({ actor: 'screening', reason: 'OFAC SDN list', outcome: 'succeeded' });
      expect(entry.details).to.deep.include({ role: 'destination', decision: 'deny', provider: 'provider', operation: 'createSwap' });
    });

    it('refuses a refund address the provider denies at POST /quotes and at POST /swaps', async () => {
      provider.answer = (subject) => (subject.role === 'refund' ? deny('stolen funds') : allow);
      const request = btcToUsdt('0.015', { refundMode: 'address', refundAddress: 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh' });
      const quoted = await client.send('POST', '/api/v1/quotes', request);
      expectError(quoted, 403, 'address_denied');
      expect((quoted.body as { error: { details: unknown } }).error.details).to.deep.include({ field: 'refundAddress', role: 'refund' });

      // A quote taken while the address was allowed does not carry a swap past screening.
      provider.answer = () => allow;
      const quote = await client.quote(request);
      provider.answer = (subject) => (subject.role === 'refund' ? deny('stolen funds') : allow);
      const created = await client.createRaw(swapBody(quote, request));
      expectError(created, 403, 'address_denied');
      expect((created.body as unknown as { error: { details: unknown } }).error.details).to.deep.include({ field: 'refundAddress' });
    });

    it('refuses a permanent route to a settlement wallet the provider denies', async () => {
      const wallet = freshZanoWallet();
      provider.answer = (subject) => (subject.address === wallet.address ? deny('sanctioned wallet') : allow);
      const body = await signRouteRequest(client, user, { wallet });
      const res = await client.send('POST', '/api/v1/permanent-routes', body);
      expectError(res, 403, 'address_denied');
      expect((res.body as { error: { details: unknown } }).error.details).to.deep.equal({
        field: 'destinationAddress',
        role: 'destination',
        network: 'ZANO',
      });
      // Another wallet of the same user is allowed.
      const other = await client.send('POST', '/api/v1/permanent-routes', await signRouteRequest(client, user));
      expect(other.status, other.text).to.equal(201);
    });

    it('denies a NETWORK: denylist entry on that network only, without asking the provider', async () => {
      const before = provider.asked.length;
      const onEth = await createSwap(client, { destinationAddress: ETH_ONLY });
      expectError(onEth, 403, 'address_denied');
      expect(provider.asked.slice(before).map((a) => a.address)).not.to.include(ETH_ONLY);
      const [entry] = await screeningTrail(closed, `ETH:${ETH_ONLY}`);
      expect(entry.details).to.deep.include({ provider: 'denylist', decision: 'deny' });

      // The same address as a BNB Smart Chain destination is not on the list.
      const bsc = { ...btcToUsdt(), destinationAsset: 'BNB', destinationNetwork: 'BSC' };
      const onBsc = await createSwap(client, { destinationAddress: ETH_ONLY }, bsc);
      expect(onBsc.status, onBsc.text).to.equal(202);
    });

    it('denies an entry without a prefix on every network, whatever the case', async () => {
      const res = await client.send('POST', '/api/v1/quotes', btcToUsdt('0.015', { refundMode: 'address', refundAddress: EVERYWHERE }));
      expectError(res, 403, 'address_denied');
    });

    it('creates the swap when screening allows every address', async () => {
      const res = await createSwap(client, { destinationAddress: ETH_ADDRESS });
      expect(res.status, res.text).to.equal(202);
    });
  });

  describe('a provider that fails', () => {
    const failures: Array<[string, ProviderAnswer]> = [
      ['does not answer within SCREENING_TIMEOUT_MS', { body: JSON.stringify({ decision: 'allow' }), delayMs: 2_000 }],
      ['answers a body that is not JSON', { body: '<html>502 Bad Gateway</html>' }],
      ['answers a decision it does not know', { body: JSON.stringify({ decision: 'approve' }) }],
      ['answers more than 16 KiB', { body: JSON.stringify({ decision: 'allow', padding: 'x'.repeat(20_000) }) }],
    ];
    for (const [what, answer] of failures) {
      it(`${what}: fail mode closed (the default) refuses the destination, open lets it through`, async () => {
        provider.answer = () => answer;
        const refused = await createSwap(client, { destinationAddress: ETH_ADDRESS });
        expectError(refused, 403, 'address_denied');
        const [entry] = await screeningTrail(closed, `ETH:${ETH_ADDRESS}`);
        expect(entry.details).to.deep.include({ decision: 'review', provider: 'provider' });
        expect(entry.reason).to.include('SCREENING_FAIL_MODE=closed');

        const allowed = await createSwap(openClient, { destinationAddress: ETH_ADDRESS });
        expect(allowed.status, allowed.text).to.equal(202);
      });
    }
  });

  describe('the sender of a deposit', () => {
    // A swap paid from a sender the provider answers `answer` for, once its step has decided.
    const paidFrom = async (c: ReturnType<typeof swapClient>, server: TestServer, answer: ProviderAnswer, done: (o: Swap) => boolean) => {
      provider.answer = (subject) => (subject.role === 'sender' ? answer : allow);
      const { order } = await c.create(btcToUsdt('0.015', { rateType: 'fixed' }));
      await c.pay(order);
      const { order: decided } = await c.waitFor(order.id, done);
      const verdicts = await server.knex('screening_verdicts').where({ swap_id: order.id });
      const refunds = await server.knex('payouts').where({ swap_id: order.id, purpose: 'refund' });
      return { order: decided, verdicts, refunds };
    };

    it('holds the swap in review with screening_hold when the provider denies the sender, and commits no refund', async () => {
      const { order, verdicts, refunds } = await paidFrom(client, closed, deny('darknet market'), (o) => o.status === 'review');
      expect(order.failureCode).to.equal('screening_hold');
      expect(order.deposits?.[0]).to.include({ role: 'swap', status: 'review' });
      expect(refunds).to.have.length(0);
      expect(verdicts).to.have.length(1);
      expect(verdicts[0]).to.include({ role: 'sender', decision: 'deny', reason: 'darknet market', provider: 'provider' });
      expect(provider.asked).to.deep.include({ network: 'BTC', address: verdicts[0].address, role: 'sender' });
      const [entry] = await screeningTrail(closed, order.id);
      expect(entry).to.include({ actor: 'screening', reason: 'darknet market' });

      // A refund would go to the denied sender (refundMode sender): refused, saying why.
      const refund = await client.send<{ error: { message: string } }>('POST', `/api/v1/sandbox/swaps/${order.id}/review-decision`, {
        decision: 'refund',
      });
      expectError(refund, 409, 'invalid_state');
      expect(refund.body.error.message).to.match(/denied by address screening \(darknet market\).*never refunds to a sender/);
      expect(await closed.knex('payouts').where({ swap_id: order.id, purpose: 'refund' })).to.have.length(0);

      // An operator who finds screening wrong approves: the swap goes on and finishes.
      const approved = await client.send('POST', `/api/v1/sandbox/swaps/${order.id}/review-decision`, { decision: 'approve' });
      expect(approved.status, approved.text).to.equal(200);
      await client.waitFor(order.id, (o) => o.status === 'finished');
    });

    it('holds the swap for a sender the provider holds for review', async () => {
      const review = { body: JSON.stringify({ decision: 'review', reason: 'mixer exposure 40%' }) };
      const { order, verdicts } = await paidFrom(client, closed, review, (o) => o.status === 'review');
      expect(order.failureCode).to.equal('screening_hold');
      expect(verdicts[0]).to.include({ decision: 'review', reason: 'mixer exposure 40%' });
    });

    it('holds the swap when the provider times out (closed), and lets it finish when the deployment fails open', async () => {
      const slow = { body: JSON.stringify({ decision: 'allow' }), delayMs: 2_000 };
      const held = await paidFrom(client, closed, slow, (o) => o.status === 'review');
      expect(held.order.failureCode).to.equal('screening_hold');
      expect(held.verdicts[0]).to.include({ decision: 'review', failure: 'did not answer within 300 ms' });

      const let_ = await paidFrom(openClient, open, slow, (o) => o.status === 'finished');
      expect(let_.order.failureCode).to.equal(null);
      expect(let_.verdicts[0]).to.include({ decision: 'allow', failure: 'did not answer within 300 ms' });
      // An allowed verdict is stored, not put in the trail.
      expect(await screeningTrail(open, let_.order.id)).to.have.length(0);
    });

    it('holds the swap for a sender on the denylist (sandbox fromAddress), without asking the provider', async () => {
      const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
      const ready = await client.waitFor(order.id, (o) => !!o.depositAddress);
      const paid = await client.send('POST', '/api/v1/sandbox/deposits', {
        address: ready.order.depositAddress,
        asset: 'BTC',
        network: 'BTC',
        amount: '0.015',
        fromAddress: DENYLISTED_SENDER,
      });
      expect(paid.status, paid.text).to.equal(202);
      const { order: held } = await client.waitFor(order.id, (o) => o.status === 'review');
      expect(held.failureCode).to.equal('screening_hold');
      const [verdict] = await closed.knex('screening_verdicts').where({ swap_id: order.id });
      expect(verdict).to.include({ address: DENYLISTED_SENDER, decision: 'deny', provider: 'denylist' });
      expect(provider.asked.map((a) => a.address)).not.to.include(DENYLISTED_SENDER);
      expect(await closed.knex('payouts').where({ swap_id: order.id, purpose: 'refund' })).to.have.length(0);
    });

    it('refuses a sandbox fromAddress that is not an address of the network', async () => {
      const { order } = await client.create(btcToUsdt());
      const ready = await client.waitFor(order.id, (o) => !!o.depositAddress);
      const res = await client.send('POST', '/api/v1/sandbox/deposits', {
        address: ready.order.depositAddress,
        asset: 'BTC',
        network: 'BTC',
        amount: '0.015',
        fromAddress: ETH_ADDRESS,
      });
      expectError(res, 400, 'invalid_request');
      expect((res.body as { error: { details: unknown } }).error.details).to.deep.equal({ field: 'fromAddress' });
    });

    it('screens the sender once, and lets a swap from an allowed sender finish', async () => {
      const { order, verdicts } = await paidFrom(client, closed, allow, (o) => o.status === 'finished');
      expect(verdicts).to.have.length(1);
      expect(provider.asked.filter((a) => a.role === 'sender' && a.address === verdicts[0].address)).to.have.length(1);
      expect(order.failureCode).to.equal(null);
    });
  });
});
