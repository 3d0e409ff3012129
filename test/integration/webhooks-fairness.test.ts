import { expect } from 'chai';
import type { SwapUpdatedEvent } from '../../sdk/src/webhooks.js';
import { expectError, readJson } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { signedFetch, type SignerOptions } from '../support/signer.js';
import { swapClient } from '../support/swaps.js';
import type { components } from '../../generated/api.js';
import { createReceiver, LOCAL_RECEIVER_ENV, type Receiver } from '../support/webhook-receiver.js';

type Delivery = components['schemas']['WebhookDelivery'];

const PER_PARTNER = 4;
// Long enough that no hanging attempt ends while the other partner's deliveries are measured.
const TIMEOUT_SECONDS = 30;
// A backlog of a few hundred messages: put back every few seconds, as the pump once did, it would cost
// hundreds of put-backs a second; paced, about one each at most.
const A_SWAPS = 300;
// B's deliveries must arrive well within this of their messages. The bug delayed them by the receiver's time
// limit (10 s by default; 11.4 s in the review); 2 s is far below that and leaves room for a loaded 2-core CI
// machine (an unloaded one delivers in tens of milliseconds).
const PROMPT_MS = 2_000;
// Put-backs counted over a quiet stretch of this length once A's backlog is in: with pacing, about the slots
// that free in it (none: 4 slots held 30 s each; a reserved job that comes due finds none and goes back);
// without, every due job of the backlog again and again.
const QUIET_MS = 5_000;

describe('webhook deliveries of one partner do not wait on another’s slow receiver', function () {
  this.timeout(180_000);
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
      metrics: true,
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

  const putBacks = async (): Promise<number> => {
    const text = await (await fetch(server.metricsUrl!)).text();
    const line = text.split('\n').find((l) => l.startsWith('pss_webhook_put_backs_total '));
    if (!line) throw new Error('pss_webhook_put_backs_total is not exported');
    return Number(line.split(' ')[1]);
  };

  it('delivers B’s messages within 2 s while A’s receiver hangs with a backlog of hundreds, puts A’s jobs back about once each, and A never gets more than its limit of connections', async () => {
    const a = await partnerWithWebhook(slow);
    const b = await partnerWithWebhook(fast);
    slow.respond = () => 'hang';

    // A's backlog: messages A's receiver will hold.
    const clientA = swapClient(server.origin, a);
    for (let i = 0; i < A_SWAPS; i += 20) await Promise.all(Array.from({ length: 20 }, () => clientA.create()));
    const partnerA = (await server.knex('partners').where({ key_id: a.keyId }).first('id')).id as string;
    // One message per swap when its deposit address is allocated.
    const backlog = async () => Number((await server.knex('webhook_outbox').where({ partner_id: partnerA }).count({ n: '*' }))[0].n);
    for (let waited = 0; (await backlog()) < A_SWAPS && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(await backlog()).to.be.at.least(A_SWAPS);
    await slow.waitFor((received) => received.length >= PER_PARTNER, 10_000);

    // A quiet stretch: A's receiver holds its slots, nothing new is written.
    const before = await putBacks();
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const quiet = (await putBacks()) - before;
    expect(quiet, `${quiet} put-backs in ${QUIET_MS} ms`).to.be.at.most(2 * PER_PARTNER);

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
    expect(Math.max(...lateness), `B's deliveries arrived ${lateness.join(', ')} ms after their messages`).to.be.below(PROMPT_MS);
    // About one put-back per message of A's at most, over the whole time its receiver hung.
    expect(await putBacks()).to.be.at.most(A_SWAPS);

    // A's receiver: at most its limit of connections at once, each holding one request.
    expect(slow.maxOpenConnections()).to.be.at.most(PER_PARTNER);
    expect(slow.received).to.have.length(PER_PARTNER);
    // Jobs that waited for A's slots were put back, not attempted: nothing is recorded while A's requests hang.
    expect(await attemptsOf(a)).to.deep.equal([]);

    // A's receiver answers again: the hanging attempts fail (reset) and are retried, the rest are first
    // attempts, and every message of A's arrives, at the receiver's pace, not the dead one's (a job every
    // 7.5 s, its 4 slots' share of the time limit, would take over half an hour for the backlog).
    slow.respond = () => ({ status: 200 });
    const recovered = Date.now();
    slow.dropConnections();
    const aMessages: string[] = await server.knex('webhook_outbox').where({ partner_id: partnerA }).pluck('id');
    const arrived = (received: typeof slow.received) => aMessages.filter((id) => received.some((d) => d.headers['webhook-id'] === id));
    // The backlog waited in the outbox and goes at once; the few jobs reserved while the receiver hung keep
    // their times (within delivery-pump.ts PUT_BACK_HORIZON_MS). Here the 300 took 16-29 s; the bound is
    // loose for a loaded CI machine and still far below the dead pace's half hour.
    await slow.waitFor((received) => arrived(received).length === aMessages.length, 90_000);
    console.log(
      `      A's ${aMessages.length} messages arrived within ${Date.now() - recovered} ms of recovery; ${await putBacks()} put-backs in all`,
    );
    const attempts = await attemptsOf(a);
    const failed = attempts.filter((d) => !d.succeeded);
    expect(failed.length, JSON.stringify(failed.map((d) => d.error))).to.equal(PER_PARTNER);
    expect(attempts.filter((d) => d.succeeded)).to.have.length(aMessages.length);
  });

  it('answers a test send with 429 rate_limited, opening no connection, while the partner’s receiver holds all its slots', async () => {
    const hanging = await createReceiver();
    await hanging.listen();
    try {
      const c = await partnerWithWebhook(hanging);
      hanging.respond = () => 'hang';
      const ping = () => readJson(signedFetch(server.origin, c, 'POST', '/api/v1/partner/webhook/test'));
      // As many test sends as the partner has slots, each held by the receiver.
      const held = Array.from({ length: PER_PARTNER }, () => ping());
      await hanging.waitFor((received) => received.length === PER_PARTNER, 10_000);
      // One more waits a second in line and is refused (without the limit it hung for the receiver's time limit
      // on a fifth connection).
      const started = Date.now();
      const refused = await Promise.race([
        ping(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the fifth test send was not answered within 3 s')), 3_000)),
      ]);
      expectError(refused, 429, 'rate_limited');
      expect(Date.now() - started).to.be.below(PROMPT_MS);
      expect(refused.headers.get('retry-after')).to.equal(String(TIMEOUT_SECONDS));
      expect((refused.body as { error: { details: unknown } }).error.details).to.deep.equal({
        limit: PER_PARTNER,
        scope: 'webhook_receiver',
      });
      expect(hanging.received).to.have.length(PER_PARTNER);
      expect(hanging.maxOpenConnections()).to.equal(PER_PARTNER);
      // The receiver lets go: the held sends answer with their failed attempts, and a slot is free again.
      hanging.dropConnections();
      for (const res of await Promise.all(held)) expect(res.status, res.text).to.equal(200);
      hanging.respond = () => ({ status: 204 });
      const again = await ping();
      expect(again.status, again.text).to.equal(200);
      expect((again.body as Delivery).succeeded).to.equal(true);
    } finally {
      await hanging.close();
    }
  });
});
