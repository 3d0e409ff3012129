import { expect } from 'chai';
import type { SwapUpdatedEvent } from '../../sdk/src/webhooks.js';
import { readJson } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { signedFetch, type SignerOptions } from '../support/signer.js';
import { swapClient } from '../support/swaps.js';
import type { components } from '../../generated/api.js';
import { createReceiver, LOCAL_RECEIVER_ENV, type Receiver } from '../support/webhook-receiver.js';

type Delivery = components['schemas']['WebhookDelivery'];

const PER_PARTNER = 4;
// Long enough that no hanging attempt ends while the other partner's deliveries are measured.
const TIMEOUT_SECONDS = 10;
const A_SWAPS = 40;

describe('webhook deliveries of one partner do not wait on another’s slow receiver', function () {
  this.timeout(120_000);
  let server: TestServer;
  let slow: Receiver;
  let fast: Receiver;
  before(async () => {
    server = await startTestServer({
      env: {
        ...LOCAL_RECEIVER_ENV,
        WEBHOOK_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
        WEBHOOK_RETRY_SECONDS: '0.2,0.2,0.2',
        WEBHOOK_MAX_CONCURRENT_PER_PARTNER: String(PER_PARTNER),
        RATE_LIMIT_SWAPS_PER_MINUTE: '10000',
        RATE_LIMIT_QUOTES_PER_MINUTE: '10000',
        RATE_LIMIT_SIGNED_PER_MINUTE: '100000',
      },
    });
    slow = await createReceiver();
    fast = await createReceiver();
    await slow.listen();
    await fast.listen();
  });
  after(async () => {
    // The hanging requests end first, so that stopping the server waits for none of them.
    await slow.close();
    await fast.close();
    await server.close();
  });

  async function partnerWithWebhook(receiver: Receiver): Promise<SignerOptions> {
    const partner = await server.createSigner();
    const res = await readJson(signedFetch(server.origin, partner, 'PUT', '/api/v1/partner/webhook', { url: receiver.url }));
    expect(res.status, res.text).to.equal(200);
    return partner;
  }

  const attemptsOf = async (partner: SignerOptions): Promise<Delivery[]> => {
    const all: Delivery[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { deliveries: Delivery[]; nextCursor: string | null } } = await readJson(
        signedFetch(server.origin, partner, 'GET', `/api/v1/partner/webhook/deliveries?limit=100${cursor ? `&cursor=${cursor}` : ''}`),
      );
      all.push(...page.body.deliveries);
      cursor = page.body.nextCursor;
    } while (cursor);
    return all;
  };

  it('delivers B’s messages within 500 ms while A’s receiver hangs with a backlog, and A never gets more than its limit of connections', async () => {
    const a = await partnerWithWebhook(slow);
    const b = await partnerWithWebhook(fast);
    slow.respond = () => 'hang';

    // A's backlog: messages A's receiver will hold.
    const clientA = swapClient(server.origin, a);
    for (let i = 0; i < A_SWAPS; i += 10) await Promise.all(Array.from({ length: 10 }, () => clientA.create()));
    const partnerA = (await server.knex('partners').where({ key_id: a.keyId }).first('id')).id as string;
    // One message per swap when its deposit address is allocated.
    const backlog = async () => Number((await server.knex('webhook_outbox').where({ partner_id: partnerA }).count({ n: '*' }))[0].n);
    for (let waited = 0; (await backlog()) < A_SWAPS && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(await backlog()).to.be.at.least(A_SWAPS);
    await slow.waitFor((received) => received.length >= PER_PARTNER, 10_000);

    // B's messages, written beside A's backlog.
    const clientB = swapClient(server.origin, b);
    for (let i = 0; i < 3; i++) {
      const { order } = await clientB.create();
      await clientB.waitFor(order.id, (o) => Boolean(o.depositAddress));
    }
    const partnerB = (await server.knex('partners').where({ key_id: b.keyId }).first('id')).id as string;
    const expected: string[] = await server.knex('webhook_outbox').where({ partner_id: partnerB }).pluck('id');
    expect(expected.length).to.be.at.least(3);
    await fast.waitFor((received) => expected.every((id) => received.some((d) => d.headers['webhook-id'] === id)), 15_000);
    const lateness = fast.received.map((d) => d.receivedAt.getTime() - Date.parse((JSON.parse(d.body) as SwapUpdatedEvent).timestamp));
    expect(Math.max(...lateness), `B's deliveries arrived ${lateness.join(', ')} ms after their messages`).to.be.below(500);

    // A's receiver: at most its limit of connections at once, each holding one request.
    expect(slow.maxOpenConnections()).to.be.at.most(PER_PARTNER);
    expect(slow.received).to.have.length(PER_PARTNER);
    // Jobs that waited for A's slots were put back, not attempted: nothing is recorded while A's requests hang.
    expect(await attemptsOf(a)).to.deep.equal([]);

    // A's receiver answers again: the hanging attempts fail (reset) and are retried, the rest are first
    // attempts, and every message of A's arrives.
    slow.respond = () => ({ status: 200 });
    slow.dropConnections();
    const aMessages: string[] = await server.knex('webhook_outbox').where({ partner_id: partnerA }).pluck('id');
    await slow.waitFor((received) => aMessages.every((id) => received.some((d) => d.headers['webhook-id'] === id)), 60_000);
    const attempts = await attemptsOf(a);
    const failed = attempts.filter((d) => !d.succeeded);
    expect(failed.length, JSON.stringify(failed.map((d) => d.error))).to.equal(PER_PARTNER);
    expect(attempts.filter((d) => d.succeeded)).to.have.length(aMessages.length);
  });
});
