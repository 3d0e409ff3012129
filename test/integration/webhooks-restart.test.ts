import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { verifyWebhook, type SwapUpdatedEvent } from '../../sdk/src/webhooks.js';
import { openDatabase } from '../../server/store/database.js';
import { readJson } from '../support/http.js';
import { freePort, startedDataDir, startServerChild, type Child } from '../support/process.js';
import { signedFetch, type SignerOptions } from '../support/signer.js';
import { btcToUsdt, swapClient } from '../support/swaps.js';
import type { components } from '../../generated/api.js';
import { createReceiver, type ReceivedDelivery, type Receiver, LOCAL_RECEIVER_ENV } from '../support/webhook-receiver.js';

type Delivery = components['schemas']['WebhookDelivery'];

const root = path.resolve(import.meta.dirname, '../..');

describe('webhook delivery across a restart (the real process, SIGKILL with deliveries pending)', function () {
  this.timeout(180_000);
  let dataDir: string;
  let child: Child | undefined;
  let receiver: Receiver;
  before(async () => {
    dataDir = await startedDataDir(root, 'pss-webhooks-');
    receiver = await createReceiver();
  });
  afterEach(async () => {
    await child?.stop('SIGKILL');
    child = undefined;
  });
  after(async () => {
    await receiver.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function start(port: number): Promise<SignerOptions> {
    const started = await startServerChild(root, {
      port,
      dataDir,
      // The first retry waits long enough that no attempt is in flight when the process is killed (a job
      // active at the kill waits for pg-boss's expiry, past this test's wait). The kill comes a second after
      // the last first attempt, and the first attempts span up to a second or more on a loaded machine: with
      // a first retry of 3 s, the earliest was due 0.8-1.3 s after the count while CI ran beside it.
      env: { ...LOCAL_RECEIVER_ENV, SANDBOX_BLOCK_SECONDS: '0.1', WEBHOOK_RETRY_SECONDS: '10,0.5,0.5,0.5,1,1,1,1,1,1' },
    });
    child = started.child;
    return started.demo;
  }

  it('delivers, after the restart, the retries pending at the kill and an outbox row committed just before it', async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const partner = await start(port);
    // The receiver is down (connections refused) until the server has been killed.
    const put = await readJson<{ secret: string }>(signedFetch(origin, partner, 'PUT', '/api/v1/partner/webhook', { url: receiver.url }));
    expect(put.status, put.text).to.equal(200);
    const webhookSecret = put.body.secret;

    const client = swapClient(origin, partner);
    const { order } = await client.create(btcToUsdt('0.015', { rateType: 'fixed' }));
    await client.pay(order);
    const { events } = await client.waitFor(order.id, (o) => o.terminal);
    // Every message has had its first attempt refused; their retries are queued 10 s later. A message per
    // timeline entry at least, and one per change of the order without one (the payout's amount fixed): the
    // count is taken once it has stayed the same for a second.
    const deadline = Date.now() + 20_000;
    let attempted = -1;
    let stableSince = Date.now();
    for (;;) {
      const page = await readJson<{ deliveries: Delivery[] }>(
        signedFetch(origin, partner, 'GET', '/api/v1/partner/webhook/deliveries?limit=100'),
      );
      const first = page.body.deliveries.filter((d) => d.attempt === 1);
      if (first.length !== attempted) [attempted, stableSince] = [first.length, Date.now()];
      if (first.length >= events.length && Date.now() - stableSince >= 1_000) {
        expect(first.every((d) => !d.succeeded && d.nextAttemptAt !== null && /connection refused/.test(d.error ?? ''))).to.equal(true);
        // The kill comes before any retry is due (else this test would see a job left active, not a retry).
        const firstRetry = Math.min(...first.map((d) => Date.parse(d.nextAttemptAt!)));
        expect(firstRetry - Date.now(), 'ms until the first retry at the kill').to.be.greaterThan(1_000);
        break;
      }
      if (Date.now() > deadline) throw new Error(`only ${first.length} of at least ${events.length} first attempts were made`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await child!.stop('SIGKILL');
    child = undefined;

    // As if a transition had committed its outbox row and the process had died before anything else ran.
    const db = await openDatabase({ dataDir });
    let messageIds: string[];
    let lateId: string;
    try {
      const demo = await db.knex('partners').where({ key_id: 'demo' }).first('id');
      const last = await db.knex('webhook_outbox').where({ partner_id: demo.id }).orderBy('seq', 'desc').first('payload');
      const [late] = await db
        .knex('webhook_outbox')
        .insert({ partner_id: demo.id, type: 'swap.updated', payload: JSON.stringify(last.payload) })
        .returning('id');
      lateId = late.id;
      messageIds = await db.knex('webhook_outbox').where({ partner_id: demo.id }).pluck('id');
    } finally {
      await db.close();
    }
    expect(messageIds).to.have.length(attempted + 1);

    await receiver.listen();
    await start(port);
    const acknowledged = (received: ReceivedDelivery[]) => new Set(received.map((d) => d.headers['webhook-id'] as string));
    await receiver.waitFor((received) => messageIds.every((id) => acknowledged(received).has(id)), 60_000);

    expect([...acknowledged(receiver.received)].sort()).to.deep.equal([...messageIds].sort());
    for (const delivery of receiver.received) {
      const event = verifyWebhook(delivery.body, delivery.headers, webhookSecret) as SwapUpdatedEvent;
      expect(event.data.order.id).to.equal(order.id);
    }
    // The retried messages arrive as attempt 2 (their first attempt was before the kill), the late row as attempt 1.
    const page = await readJson<{ deliveries: Delivery[] }>(
      signedFetch(origin, partner, 'GET', '/api/v1/partner/webhook/deliveries?limit=100'),
    );
    const succeeded = page.body.deliveries.filter((d) => d.succeeded);
    expect(succeeded.map((d) => d.eventId).sort()).to.deep.equal([...messageIds].sort());
    expect(succeeded.find((d) => d.eventId === lateId)!.attempt).to.equal(1);
    expect(succeeded.filter((d) => d.eventId !== lateId).every((d) => d.attempt === 2)).to.equal(true);
  });
});
