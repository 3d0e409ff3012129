import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { verifyWebhook, type SwapUpdatedEvent } from '../../sdk/src/webhooks.js';
import { loadSandboxCatalog } from '../../server/adapters/sandbox/catalog.js';
import { createSandboxRates } from '../../server/adapters/sandbox/rates.js';
import { Money } from '../../server/domain/money.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/postgres.js';
import { openDatabase } from '../../server/store/database.js';
import { freePort, startedDataDir, startServerChild, type ServerChild } from '../support/process.js';
import { createVerifiedRoute, waitForDeposits, type Route } from '../support/routes.js';
import { btcToUsdt, swapClient, type Swap } from '../support/swaps.js';
import { createReceiver, type ReceivedDelivery, type Receiver, LOCAL_RECEIVER_ENV } from '../support/webhook-receiver.js';
import { OS_USER, type TrailEntry } from '../support/operator-trail.js';
import { compiledScript } from '../support/build.js';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

// What a server and the CLI share besides the database: the key generated in DATA_DIR; fast blocks; route
// deposits found at once inside an expect-deposit window.
const SHARED_ENV = {
  SECRETS_KEY: '',
  SANDBOX_BLOCK_SECONDS: '0.05',
  LOG_LEVEL: 'warn',
  ROUTE_POLL_SECONDS: '30',
  ROUTE_EXPECT_POLL_SECONDS: '0.1',
  EXPECT_DEPOSIT_SECONDS: '60',
};

const terminal = (o: Swap) => ['finished', 'refunded', 'expired', 'failed'].includes(o.status);

describe('the ops CLI (npm run ops) next to a running server', function () {
  this.timeout(120_000);
  let dataDir: string;
  // A fresh PostgreSQL database when the suite runs with DATABASE_URL; the embedded one in DATA_DIR otherwise.
  let database: ScratchDatabase | undefined;
  let server: ServerChild;
  let receiver: Receiver;
  let secret: string;
  let client: ReturnType<typeof swapClient>;

  const cli = async (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    try {
      const { stdout, stderr } = await run(process.execPath, [...(await compiledScript('ops')), ...args], {
        cwd: root,
        // $USER says alice, but the actor is the OS user unless --actor names another.
        env: { ...process.env, ...SHARED_ENV, DATA_DIR: dataDir, DATABASE_URL: database?.url ?? '', USER: 'alice' },
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  // The test process reaches the server's database as the CLI does (the embedded one through its socket).
  const withDatabase = async <T>(use: (knex: Knex) => Promise<T>): Promise<T> => {
    const db = await openDatabase({ databaseUrl: database?.url, dataDir });
    try {
      return await use(db.knex);
    } finally {
      await db.close();
    }
  };
  const decisionsOf = (swapId: string) =>
    withDatabase((knex) => knex('operator_decisions').where({ swap_id: swapId }).orderBy('created_at'));
  /** The trail's entries about `target`, newest first, as `ops audit list --json` prints them. */
  const trailOf = async (target: string): Promise<TrailEntry[]> => {
    const listed = await cli('audit', 'list', '--target', target, '--json');
    expect(listed.code, listed.stderr).to.equal(0);
    return JSON.parse(listed.stdout) as TrailEntry[];
  };
  const swapUpdates = (swapId: string): Array<{ delivery: ReceivedDelivery; event: SwapUpdatedEvent }> =>
    receiver.received
      .map((delivery) => ({ delivery, event: verifyWebhook(delivery.body, delivery.headers, secret) as SwapUpdatedEvent }))
      .filter(({ event }) => event.type === 'swap.updated' && event.data.order.id === swapId);

  /** A new BTC -> USDT swap paid above the automatic maximum, once it waits in review. */
  const swapInReview = async (): Promise<Swap> => {
    const { order } = await client.create(btcToUsdt('0.5', { rateType: 'fixed' }));
    await client.pay(order);
    return (await client.waitFor(order.id, (o) => o.status === 'review')).order;
  };

  before(async () => {
    if (process.env.DATABASE_URL) database = await createScratchDatabase(process.env.DATABASE_URL, 'pss_ops');
    // The embedded database as a first start leaves it (copied; this suite is about the CLI, not the first start).
    dataDir = database ? await fs.mkdtemp(path.join(os.tmpdir(), 'pss-ops-')) : await startedDataDir(root, 'pss-ops-');
    receiver = await createReceiver();
    await receiver.listen();
    server = await startServerChild(root, {
      port: await freePort(),
      dataDir,
      env: {
        ...SHARED_ENV,
        ...LOCAL_RECEIVER_ENV,
        DATABASE_URL: database?.url ?? '',
        RATE_LIMIT_SWAPS_PER_MINUTE: '10000',
        RATE_LIMIT_QUOTES_PER_MINUTE: '10000',
        RATE_LIMIT_SIGNED_PER_MINUTE: '100000',
      },
    });
    client = swapClient(server.origin, { ...server.demo, user: 'user-7' });
    const webhook = await client.send<{ secret: string }>('PUT', '/api/v1/partner/webhook', { url: receiver.url });
    expect(webhook.status, webhook.text).to.equal(200);
    secret = webhook.body.secret;
  });
  after(async () => {
    await server?.child.stop();
    await receiver?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  describe('swaps list --action-required operator', () => {
    it('lists a swap in review as a table and as JSON, with its partner, reason and amounts', async () => {
      const held = await swapInReview();

      const table = await cli('swaps', 'list', '--action-required', 'operator');
      expect(table.code, table.stderr).to.equal(0);
      const [header, ...lines] = table.stdout.trim().split('\n');
      expect(header).to.match(/^ID\s+PARTNER\s+MODE\s+STATUS\s+REASON\s+FAILURE\s+RECEIVED\s+EXPECTED OUT\s+UPDATED$/);
      const line = lines.find((l) => l.startsWith(held.id));
      expect(line, table.stdout).to.match(/\sdemo\s+standard\s+review\s+manual_review\s+-\s+0\.5 of 0\.5 BTC\/BTC\s/);

      const json = await cli('swaps', 'list', '--action-required', 'operator', '--json');
      expect(json.code, json.stderr).to.equal(0);
      const item = (JSON.parse(json.stdout) as Array<Record<string, unknown>>).find((s) => s.id === held.id);
      expect(item).to.deep.include({
        mode: 'standard',
        partnerKeyId: 'demo',
        status: 'review',
        reasonCode: 'manual_review',
        failureCode: null,
        sourceAsset: 'BTC',
        depositAmount: '0.5',
        receivedAmount: '0.5',
        destinationAsset: 'USDT',
        expectedOutputAmount: held.expectedOutputAmount,
      });
      expect(new Date(item!.updatedAt as string).toISOString()).to.equal(item!.updatedAt);
    });

    it('refuses a list it does not know with the usage and exit code 2', async () => {
      const wrong = await cli('swaps', 'list', '--action-required', 'customer');
      expect(wrong.code).to.equal(2);
      expect(wrong.stderr).to.contain('needs --action-required operator').and.contain('usage: npm run ops');
    });
  });

  describe('review decide', () => {
    it('exchanges a swap in review on --exchange: it reaches finished, the timeline and the webhook show it, the decision is recorded', async () => {
      const held = await swapInReview();
      const decided = await cli('review', 'decide', held.id, '--exchange', '--reason', 'KYC documents checked');
      expect(decided.code, decided.stderr).to.equal(0);
      expect(decided.stdout).to.contain(`swap ${held.id}: review -> exchanging (exchange by ${OS_USER}`);

      // The server's workers carry it on from the job the CLI queued with the decision.
      const { order, events } = await client.waitFor(held.id, terminal);
      expect(order.status).to.equal('finished');
      // `confirming` repeats when the worker sees the confirmations arrive one by one.
      const passed = events.map((e) => e.status).filter((status, i, all) => i === 0 || status !== all[i - 1]);
      expect(passed).to.deep.equal(['waiting', 'confirming', 'review', 'exchanging', 'sending', 'finished']);
      const exchanging = events.find((e) => e.status === 'exchanging')!;
      expect(exchanging).to.include({ actionRequired: 'none', reasonCode: 'processing', terminal: false });

      await receiver.waitFor(() => swapUpdates(held.id).some(({ event }) => event.data.order.status === 'finished'));
      const update = swapUpdates(held.id).find(({ event }) => event.data.event?.status === 'exchanging');
      expect(update, 'a swap.updated webhook for the decision').to.not.equal(undefined);
      expect(update!.event.data.event!.id).to.equal(exchanging.id);

      const [record, ...others] = await decisionsOf(held.id);
      expect(others).to.deep.equal([]);
      expect(record).to.include({ operator: OS_USER, decision: 'exchange', reason: 'KYC documents checked', from_status: 'review' });
      expect(record.to_status).to.equal('exchanging');
      expect(Math.abs(new Date(record.created_at).getTime() - Date.parse(exchanging.occurredAt))).to.be.below(1000);
    });

    it('refunds on --refund and fails on --fail, naming the operator given, and prints JSON on --json', async () => {
      const [toRefund, toFail] = [await swapInReview(), await swapInReview()];

      const refunded = await cli(
        'review',
        'decide',
        toRefund.id,
        '--refund',
        '--reason',
        'sanctioned sender',
        '--operator',
        'Bob',
        '--json',
      );
      expect(refunded.code, refunded.stderr).to.equal(0);
      const printed = JSON.parse(refunded.stdout);
      expect(printed.swap).to.deep.equal({ id: toRefund.id, status: 'refunded' });
      expect(printed.decision).to.include({
        operator: 'Bob',
        decision: 'refund',
        reason: 'sanctioned sender',
        fromStatus: 'review',
        toStatus: 'refunded',
      });
      const refund = (await client.get(toRefund.id)).order;
      // The 0.5 BTC deposit less Bitcoin's network fee at the sandbox's BTC price at the decision's moment (the
      // CLI prices the refund then), rounded up to 8 places.
      const [decided] = await decisionsOf(toRefund.id);
      const catalog = loadSandboxCatalog();
      const price = await createSandboxRates(catalog).priceUsd('BTC', 'BTC', decided.created_at as Date);
      const fee = new Money(catalog.networks.BTC.payoutFeeUsd).div(price).toDecimalPlaces(8, Money.ROUND_UP);
      // About 0.0000293 BTC: 2 USD at 68250 USD within the sandbox's 1.5 % drift.
      expect(fee.greaterThan('0.0000288') && fee.lessThan('0.0000298'), fee.toFixed()).to.equal(true);
      expect(refund).to.include({
        status: 'refunded',
        failureCode: 'refunded_by_review',
        refundAmount: new Money('0.5').minus(fee).toFixed(),
      });
      expect(refund.refundTxHash).to.be.a('string');

      const failed = await cli('review', 'decide', toFail.id, '--fail', '--reason', 'funds frozen by the exchange');
      expect(failed.code, failed.stderr).to.equal(0);
      const { order, events } = await client.get(toFail.id);
      expect(order).to.include({ status: 'failed', failureCode: 'failed_by_review', actionRequired: 'operator' });
      expect(events.at(-1)).to.include({ status: 'failed', reasonCode: 'support_required' });
      await receiver.waitFor(() => swapUpdates(toFail.id).some(({ event }) => event.data.event?.status === 'failed'));

      // The failed swap still waits for an operator; the refunded one does not.
      const listed = JSON.parse((await cli('swaps', 'list', '--action-required', 'operator', '--json')).stdout) as Array<
        Record<string, unknown>
      >;
      expect(listed.find((s) => s.id === toFail.id)).to.include({
        status: 'failed',
        reasonCode: 'support_required',
        failureCode: 'failed_by_review',
      });
      expect(listed.map((s) => s.id)).to.not.include(toRefund.id);
    });

    it('refuses a decision outside docs/architecture.md#lifecycle with exit code 4 and a clear message, and changes nothing', async () => {
      const held = await swapInReview();
      expect((await cli('review', 'decide', held.id, '--fail', '--reason', 'first')).code).to.equal(0);

      const again = await cli('review', 'decide', held.id, '--exchange', '--reason', 'second thoughts');
      expect(again.code).to.equal(4);
      expect(again.stderr).to.contain(`Swap ${held.id} is in status failed, not review`).and.contain('failed is terminal');
      expect((await client.get(held.id)).order.status).to.equal('failed');
      expect((await decisionsOf(held.id)).map((d) => d.decision)).to.deep.equal(['fail']);

      const { order: waiting } = await client.create();
      const early = await cli('review', 'decide', waiting.id, '--refund', '--reason', 'too soon');
      expect(early.code).to.equal(4);
      expect(early.stderr).to.contain('is in status waiting, not review');
    });

    it('answers an unknown swap with exit code 3 and a usage mistake with exit code 2', async () => {
      const unknown = await cli('review', 'decide', '00000000-0000-4000-8000-000000000000', '--exchange', '--reason', 'x');
      expect(unknown.code).to.equal(3);
      expect(unknown.stderr).to.contain('No swap with id 00000000-0000-4000-8000-000000000000');

      const held = await swapInReview();
      const noReason = await cli('review', 'decide', held.id, '--exchange');
      expect(noReason.code).to.equal(2);
      expect(noReason.stderr).to.contain('needs --reason TEXT');
      const twoDecisions = await cli('review', 'decide', held.id, '--exchange', '--fail', '--reason', 'x');
      expect(twoDecisions.code).to.equal(2);
      expect(twoDecisions.stderr).to.contain('exactly one of --exchange, --pay-again, --refund, --fail');
      expect((await client.get(held.id)).order.status).to.equal('review');
    });

    it('returns a held payment only when told which, where to and why; a payment that is not held exits 4', async () => {
      const held = await swapInReview();
      const payment = `${held.sourceTxHash}:0`;
      const noTarget = await cli('payments', 'return', held.id, payment, '--reason', 'x');
      expect(noTarget.code).to.equal(2);
      expect(noTarget.stderr).to.contain('needs exactly one of --to ADDRESS');
      const badPayment = await cli(
        'payments',
        'return',
        held.id,
        'not-a-payment',
        '--to',
        'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
        '--reason',
        'x',
      );
      expect(badPayment.code).to.equal(2);
      expect(badPayment.stderr).to.contain('TXHASH:INDEX');
      // The swap's own deposit, held with the swap in review, is decided with review decide.
      const own = await cli('payments', 'return', held.id, payment, '--to', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', '--reason', 'x');
      expect(own.code, own.stderr).to.equal(4);
      expect(own.stderr).to.contain("the swap's own deposit").and.contain('review decide');
      expect((await client.get(held.id)).order.status).to.equal('review');
    });

    it('decides a permanent route order in review the same way', async () => {
      const route: Route = await createVerifiedRoute(client, 'user-7', 'fUSD');
      expect((await client.send('POST', `/api/v1/permanent-routes/${route.route_id}/expect-deposit`)).status).to.equal(200);
      const paid = await client.send('POST', '/api/v1/sandbox/deposits', {
        address: route.addresses['USDT/TRX'],
        asset: 'USDT',
        network: 'TRX',
        amount: '10500',
      });
      expect(paid.status, paid.text).to.equal(202);
      const list = await waitForDeposits(client, route.route_id, (l) => l.deposits.some((d) => d.status === 'review'));
      const orderId = list.deposits.find((d) => d.status === 'review')!.orderId!;

      const listed = JSON.parse((await cli('swaps', 'list', '--action-required', 'operator', '--json')).stdout) as Array<
        Record<string, unknown>
      >;
      expect(listed.find((s) => s.id === orderId)).to.include({ mode: 'permanent', status: 'review', receivedAmount: '10500' });

      const decided = await cli('review', 'decide', orderId, '--exchange', '--reason', 'large but known customer');
      expect(decided.code, decided.stderr).to.equal(0);
      const { order } = await client.waitFor(orderId, terminal);
      expect(order).to.include({ mode: 'permanent', status: 'finished' });
    });
  });

  describe('webhooks redeliver', () => {
    it('delivers a message again with the same webhook-id and body, as its next attempt', async () => {
      const held = await swapInReview();
      await receiver.waitFor(() => swapUpdates(held.id).some(({ event }) => event.data.event?.status === 'review'));
      const original = swapUpdates(held.id).find(({ event }) => event.data.event?.status === 'review')!.delivery;
      const id = original.headers['webhook-id'] as string;
      const copies = () => receiver.received.filter((d) => d.headers['webhook-id'] === id);
      expect(copies()).to.have.length(1);

      const redelivered = await cli('webhooks', 'redeliver', id);
      expect(redelivered.code, redelivered.stderr).to.equal(0);
      expect(redelivered.stdout).to.contain(`queued swap.updated ${id} as attempt 2 to ${receiver.url}`);
      const queued = JSON.parse((await cli('audit', 'list', '--target', id, '--json')).stdout)[0].details as { partnerId: string };
      await receiver.waitFor(() => copies().length === 2);
      const [, again] = copies();
      expect(again.body).to.equal(original.body);
      expect((verifyWebhook(again.body, again.headers, secret) as SwapUpdatedEvent).data.event?.status).to.equal('review');

      const attempts = await client.send<{ deliveries: Array<{ attempt: number; succeeded: boolean }> }>(
        'GET',
        `/api/v1/partner/webhook/deliveries?eventId=${id}`,
      );
      expect(attempts.body.deliveries.map((d) => [d.attempt, d.succeeded])).to.have.deep.members([
        [1, true],
        [2, true],
      ]);

      // Recorded with the OS user (no --actor) and no reason (optional for a redelivery).
      const [entry, ...others] = await trailOf(id);
      expect(others).to.deep.equal([]);
      expect(entry).to.deep.include({ actor: OS_USER, action: 'webhook.redeliver', target: id, reason: null, outcome: 'succeeded' });
      expect(entry.details).to.deep.equal({ type: 'swap.updated', partnerId: queued.partnerId, attempt: 2, url: receiver.url });
    });

    it('answers an unknown message id with exit code 3 and says what to give', async () => {
      const unknown = await cli('webhooks', 'redeliver', 'msg_not-a-message');
      expect(unknown.code).to.equal(3);
      expect(unknown.stderr).to.contain('No webhook message with id msg_not-a-message').and.contain('webhook-id');
      expect((await cli('webhooks', 'redeliver')).code).to.equal(2);
      // The attempt is in the trail as refused, with what the service answered.
      const [refused, ...others] = await trailOf('msg_not-a-message');
      expect(others).to.deep.equal([]);
      expect(refused).to.deep.include({ actor: OS_USER, action: 'webhook.redeliver', outcome: 'refused' });
      expect(refused.details).to.have.nested.property('error.code', 'not_found');
    });
  });

  describe('audit list: the operator action trail', () => {
    it('records a decision with its actor, action, target, reason, time and outcome, in the transaction of the decision', async () => {
      const held = await swapInReview();
      const before = Date.now();
      const decided = await cli('review', 'decide', held.id, '--refund', '--reason', 'customer asked', '--actor', 'Carol', '--json');
      expect(decided.code, decided.stderr).to.equal(0);
      const { decision } = JSON.parse(decided.stdout) as { decision: { id: string; createdAt: string } };

      const [entry, ...others] = await trailOf(held.id);
      expect(others).to.deep.equal([]);
      expect(entry).to.deep.include({
        actor: 'Carol',
        action: 'review.decide',
        target: held.id,
        reason: 'customer asked',
        outcome: 'succeeded',
      });
      expect(entry.details).to.deep.equal({ decision: 'refund', decisionId: decision.id, fromStatus: 'review', toStatus: 'refunded' });
      // The decision's own record (operator_decisions) is kept as before, at the same instant.
      expect(entry.actedAt).to.equal(decision.createdAt);
      expect(Date.parse(entry.actedAt)).to.be.within(before - 1000, Date.now() + 1000);
      expect((await decisionsOf(held.id)).map((d) => d.operator)).to.deep.equal(['Carol']);
    });

    it('records a refused action as refused, after the refusal changed nothing, and never as succeeded', async () => {
      const held = await swapInReview();
      expect((await cli('review', 'decide', held.id, '--fail', '--reason', 'first look')).code).to.equal(0);
      const again = await cli('review', 'decide', held.id, '--exchange', '--reason', 'second thoughts', '--operator', 'Dan');
      expect(again.code).to.equal(4);

      const trail = await trailOf(held.id);
      expect(trail.map((e) => [e.actor, e.outcome, e.reason])).to.deep.equal([
        ['Dan', 'refused', 'second thoughts'],
        [OS_USER, 'succeeded', 'first look'],
      ]);
      expect(trail[0].details).to.have.nested.property('error.code', 'invalid_state');
      expect((await decisionsOf(held.id)).map((d) => d.decision)).to.deep.equal(['fail']);

      const unknown = '00000000-0000-4000-8000-00000000a0d1';
      expect((await cli('review', 'decide', unknown, '--exchange', '--reason', 'x')).code).to.equal(3);
      expect((await trailOf(unknown)).map((e) => e.outcome)).to.deep.equal(['refused']);
      // A usage mistake is not an action: nothing is recorded for it.
      expect((await cli('review', 'decide', held.id, '--exchange')).code).to.equal(2);
      expect(await trailOf(held.id)).to.have.length(2);
    });

    it('lists the trail newest first, as a table and as JSON, by action and with a limit', async () => {
      const held = await swapInReview();
      expect((await cli('review', 'decide', held.id, '--fail', '--reason', 'fraud suspected\nsee ticket 7')).code).to.equal(0);

      const all = JSON.parse((await cli('audit', 'list', '--json')).stdout) as TrailEntry[];
      expect(all.length).to.be.at.least(2);
      expect(all.map((e) => BigInt(e.id))).to.deep.equal([...all.map((e) => BigInt(e.id))].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
      expect(all[0]).to.include({ target: held.id, action: 'review.decide' });

      const two = JSON.parse((await cli('audit', 'list', '--limit', '2', '--json')).stdout) as TrailEntry[];
      expect(two).to.deep.equal(all.slice(0, 2));
      const decisions = JSON.parse((await cli('audit', 'list', '--action', 'review.decide', '--json')).stdout) as TrailEntry[];
      expect(decisions.length).to.be.at.least(1);
      expect(decisions.every((e) => e.action === 'review.decide')).to.equal(true);

      const table = await cli('audit', 'list', '--limit', '1');
      expect(table.code, table.stderr).to.equal(0);
      const [header, line, note] = table.stdout.trim().split('\n');
      expect(header).to.match(/^TIME\s+ACTOR\s+ACTION\s+TARGET\s+OUTCOME\s+REASON$/);
      expect(line).to.match(
        new RegExp(`^\\S+Z\\s+${OS_USER}\\s+review\\.decide\\s+${held.id}\\s+succeeded\\s+fraud suspected see ticket 7$`),
      );
      expect(note).to.equal('(the first 1; --limit N shows more)');
      expect((await cli('audit', 'list', '--limit', '0')).code).to.equal(2);
    });

    it('is append-only: the database refuses to update, delete or truncate it', async () => {
      expect((await cli('webhooks', 'redeliver', 'msg_to-tamper-with')).code).to.equal(3);
      const [newest] = await trailOf('msg_to-tamper-with');
      for (const tamper of [
        (knex: Knex) => knex('operator_actions').where({ id: newest.id }).update({ actor: 'mallory' }),
        (knex: Knex) => knex('operator_actions').where({ id: newest.id }).delete(),
        (knex: Knex) => knex.raw('truncate operator_actions'),
      ]) {
        const refused = await withDatabase((knex) =>
          tamper(knex).then(
            () => undefined,
            (err: Error) => err,
          ),
        );
        expect(refused, 'the statement must fail').to.be.instanceOf(Error);
        expect(refused!.message).to.contain('operator_actions is append-only');
      }
      expect(await trailOf('msg_to-tamper-with')).to.deep.equal([newest]);
    });
  });

  // `npm run ops` runs the sources under tsx; the other tests run the compiled CLI (support/build.ts).
  it('runs from its sources under tsx, as npm run ops does', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/ops.ts', '--help'], {
      cwd: root,
      env: { ...process.env, ...SHARED_ENV },
    });
    expect(stdout).to.contain('swaps list');
  });

  it('prints its usage and exit codes on --help', async () => {
    const help = await cli('--help');
    expect(help.code).to.equal(0);
    expect(help.stdout)
      .to.contain('usage: npm run ops')
      .and.contain('review decide ID --exchange|--pay-again|--refund [--to ADDRESS [--memo MEMO]]|--fail --reason TEXT')
      .and.contain('audit list [--action ACTION] [--target TARGET] [--limit N] [--json]')
      .and.contain('--actor defaults to the OS user')
      .and.contain('2 usage, 3 not found, 4 refused in the current state');
    const wrong = await cli('frobnicate');
    expect(wrong.code).to.equal(2);
    expect(wrong.stderr).to.contain('unknown command: frobnicate');
  });
});
