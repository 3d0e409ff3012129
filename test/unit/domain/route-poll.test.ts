/**
 * Decision tables for a poll of a permanent route as pure functions (docs/architecture.md#routes-and-the-wallet-proof): what the poll records, and
 * what it decides on the route's deposits without an order, the ledger's outputs, the stored buckets and the
 * prices it was given. One row per case; the helpers below build the deposits, outputs and buckets.
 */
import { expect } from 'chai';
import { loadSandboxCatalog } from '../../../server/adapters/sandbox/catalog.js';
import { Money } from '../../../server/domain/money.js';
import {
  decideRoutePoll,
  nextPollAt,
  depositsToRecord,
  SCREENING_RETRY_SECONDS,
  type SenderStanding,
  type PolledRoute,
  type RouteOutput,
  type RoutePollContext,
  type RoutePollStep,
} from '../../../server/domain/route-poll.js';
import type { BucketRecord, DepositRecord } from '../../../server/domain/route-deposit-view.js';

const catalog = loadSandboxCatalog();
const NOW = new Date('2026-06-14T10:00:00.000Z');
const EARLIER = new Date('2026-06-14T09:00:00.000Z');
const ADDRESS = 'TRouteAddress';
const BLOCK_MS = 3_000;
const SCHEDULE = { pollSeconds: 60, expectPollSeconds: 5, idleSeconds: 86_400, pollMaxSeconds: 3_600, blockMs: () => BLOCK_MS };
const CONTEXT: RoutePollContext = { catalog, dustFloorFactor: '1', schedule: SCHEDULE, now: NOW };
/** USDT/TRX needs 19 confirmations in the sandbox catalogue. */
const REQUIRED = 19;

const ROUTE: PolledRoute = {
  id: 'route-1',
  partnerId: 'partner-1',
  externalUser: 'user-1',
  destinationAsset: 'fUSD',
  destinationNetwork: 'ZANO',
  destinationAddress: 'ZxDestination',
  feePercent: '1',
  markupPercent: '0.5',
  feeFloorUsd: '0.5',
  minSwapUsd: '25',
  maxAutoSwapUsd: '10000',
  expectDepositUntil: null,
  activeAt: NOW,
  assetKeys: ['TRX/TRX', 'USDT/TRX'],
};

/** A USDT/TRX deposit `id` of `amount` without an order. */
function deposit(id: string, amount: string, status: DepositRecord['status'], confirmations: number): DepositRecord {
  return {
    id,
    routeId: ROUTE.id,
    asset: 'USDT',
    network: 'TRX',
    address: ADDRESS,
    txHash: `tx-${id}`,
    outputIndex: 0,
    fromAddress: 'TSender',
    amount,
    amountBaseUnits: new Money(amount).times(1_000_000).toFixed(),
    broadcastAt: EARLIER,
    confirmationCount: confirmations,
    requiredConfirmations: REQUIRED,
    status,
    firstSeenAt: EARLIER,
    lastSeenAt: EARLIER,
    confirmedAt: confirmations >= REQUIRED ? EARLIER : null,
    orderId: null,
    refundTxHash: null,
    createdAt: EARLIER,
    updatedAt: EARLIER,
  };
}
const confirming = (id: string, amount: string, confirmations = 0) => deposit(id, amount, 'confirming', confirmations);
const accumulating = (id: string, amount: string) => deposit(id, amount, 'accumulating', REQUIRED);

/** What the ledger shows for deposit `id`: its output with `confirmations`, or removed. */
function output(id: string, confirmations: number | 'removed', amount = '1'): RouteOutput {
  return {
    network: 'TRX',
    txHash: `tx-${id}`,
    outputIndex: 0,
    asset: 'USDT',
    address: ADDRESS,
    amount,
    fromAddress: 'TSender',
    confirmations: confirmations === 'removed' ? 0 : confirmations,
    seenAt: EARLIER,
    removed: confirmations === 'removed',
  };
}

const bucket = (accumulatedUsd: string): BucketRecord => ({
  routeId: ROUTE.id,
  asset: 'USDT',
  network: 'TRX',
  accumulatedUsd,
  thresholdUsd: '25.00',
  valuedAt: EARLIER,
});

/** USD prices by asset key; null: asked, but unavailable. */
const MARKET: Record<string, string | null> = { 'USDT/TRX': '1', 'fUSD/ZANO': '1' };

interface Row {
  when: string;
  route?: Partial<PolledRoute>;
  outputs?: RouteOutput[];
  created?: DepositRecord[];
  open?: DepositRecord[];
  buckets?: BucketRecord[];
  prices?: Record<string, string | null>;
  /** How screening stands on each deposit's sender, by id; absent: screening is off. */
  screening?: Record<string, SenderStanding>;
  expect:
    | {
        /** The steps, as `summary` writes them. */
        steps: string[];
        /** The deposits announced: `id status count/required`. */
        announce: string[];
        /** The waiting buckets after the poll: `ASSET/NETWORK accumulated`. */
        waiting: string[];
        /** Milliseconds from now. */
        nextPollInMs: number;
        activeAt?: Date;
      }
    | { unpriced: string[] }
    | { throws: RegExp };
}

const fieldText = (value: unknown) => (value instanceof Date ? (value === NOW ? 'now' : value.toISOString()) : String(value));
function summary(step: RoutePollStep): string {
  switch (step.kind) {
    case 'updateDeposit':
      return `update ${step.depositId} ${Object.entries(step.fields)
        .map(([k, v]) => `${k}=${fieldText(v)}`)
        .join(' ')}`;
    case 'convert':
      return `convert ${step.depositIds.join(',')} (${step.order.status}, ${step.order.sourceAmount}) to ${step.review ? 'review' : 'exchanging'}${step.failureCode ? ` ${step.failureCode}` : ''}`;
    case 'saveBucket':
      return `save ${step.bucket.asset}/${step.bucket.network} ${step.bucket.accumulatedUsd}`;
    case 'deleteBucket':
      return `delete ${step.bucket.asset}/${step.bucket.network}`;
  }
}

const CONFIRMED = `confirmationCount=${REQUIRED} lastSeenAt=now confirmedAt=now updatedAt=now`;
const JOINS = 'status=accumulating updatedAt=now';
const REGULAR_MS = SCHEDULE.pollSeconds * 1000;

const ROWS: Row[] = [
  {
    when: 'nothing is paid and nothing is open',
    expect: { steps: [], announce: [], waiting: [], nextPollInMs: REGULAR_MS },
  },
  {
    when: 'a payment is seen for the first time, unconfirmed',
    outputs: [output('d1', 0)],
    created: [confirming('d1', '30')],
    open: [confirming('d1', '30')],
    expect: { steps: [], announce: ['d1 confirming 0/19'], waiting: [], nextPollInMs: BLOCK_MS, activeAt: NOW },
  },
  {
    when: 'a dust payment is seen: recorded, neither announced nor a sign of life',
    route: { activeAt: EARLIER },
    created: [deposit('d1', '0.001', 'dust', 0)],
    expect: { steps: [], announce: [], waiting: [], nextPollInMs: REGULAR_MS },
  },
  {
    when: 'a confirming deposit gains confirmations short of the requirement',
    outputs: [output('d1', 5)],
    open: [confirming('d1', '30', 2)],
    expect: {
      steps: ['update d1 confirmationCount=5 lastSeenAt=now confirmedAt=null updatedAt=now'],
      announce: ['d1 confirming 5/19'],
      waiting: [],
      nextPollInMs: BLOCK_MS,
    },
  },
  {
    when: 'the ledger counts more confirmations than required: the count stops at the requirement',
    outputs: [output('d1', 40)],
    open: [confirming('d1', '30', 2)],
    expect: {
      steps: [`update d1 ${CONFIRMED}`, 'convert d1 (confirming, 30) to exchanging'],
      announce: [],
      waiting: [],
      nextPollInMs: REGULAR_MS,
    },
  },
  {
    when: 'a deposit confirms below the minimum: it waits in its bucket',
    outputs: [output('d1', REQUIRED)],
    open: [confirming('d1', '12.4', 3)],
    expect: {
      steps: [`update d1 ${CONFIRMED}`, 'save USDT/TRX 12.40', `update d1 ${JOINS}`],
      announce: ['d1 accumulating 19/19'],
      waiting: ['USDT/TRX 12.40'],
      nextPollInMs: REGULAR_MS,
    },
  },
  {
    when: 'a payment is seen for the first time already confirmed, at the minimum: it converts, announced by its order',
    outputs: [output('d1', REQUIRED)],
    created: [confirming('d1', '25', REQUIRED)],
    open: [confirming('d1', '25', REQUIRED)],
    expect: { steps: ['convert d1 (confirming, 25) to exchanging'], announce: [], waiting: [], nextPollInMs: REGULAR_MS, activeAt: NOW },
  },
  {
    when: 'a confirmed deposit brings a waiting bucket to the minimum: all convert in one order, and the bucket is gone',
    outputs: [output('a1', 30), output('d2', REQUIRED)],
    open: [accumulating('a1', '20'), confirming('d2', '5', 10)],
    buckets: [bucket('20.00')],
    expect: {
      steps: [`update d2 ${CONFIRMED}`, 'convert a1,d2 (accumulating, 25) to exchanging', 'delete USDT/TRX'],
      announce: [],
      waiting: [],
      nextPollInMs: REGULAR_MS,
    },
  },
  {
    when: 'a waiting bucket gains nothing: nothing is written, and it still waits',
    outputs: [output('a1', 30)],
    open: [accumulating('a1', '20')],
    buckets: [bucket('20.00')],
    expect: { steps: [], announce: [], waiting: ['USDT/TRX 20.00'], nextPollInMs: REGULAR_MS },
  },
  {
    when: 'a waiting bucket grows and stays below the minimum: valued again, only the newcomer written and announced',
    outputs: [output('a1', 30), output('d2', REQUIRED)],
    open: [accumulating('a1', '20'), confirming('d2', '2.5', 18)],
    buckets: [bucket('20.00')],
    expect: {
      steps: [`update d2 ${CONFIRMED}`, 'save USDT/TRX 22.50', `update d2 ${JOINS}`],
      announce: ['d2 accumulating 19/19'],
      waiting: ['USDT/TRX 22.50'],
      nextPollInMs: REGULAR_MS,
    },
  },
  {
    when: 'a deposit above the automatic maximum converts alone into review while a small one waits',
    outputs: [output('d1', REQUIRED), output('d2', REQUIRED)],
    open: [confirming('d1', '10000.01', REQUIRED), confirming('d2', '3', REQUIRED)],
    expect: {
      steps: ['convert d1 (confirming, 10000.01) to review', 'save USDT/TRX 3.00', `update d2 ${JOINS}`],
      announce: ['d2 accumulating 19/19'],
      waiting: ['USDT/TRX 3.00'],
      nextPollInMs: REGULAR_MS,
    },
  },
  {
    when: "a reorganisation removes a waiting bucket's only payment: it confirms again from 0, and the bucket is gone",
    outputs: [output('a1', 'removed')],
    open: [accumulating('a1', '20')],
    buckets: [bucket('20.00')],
    expect: {
      steps: ['update a1 status=confirming confirmationCount=0 confirmedAt=null lastSeenAt=now updatedAt=now', 'delete USDT/TRX'],
      announce: ['a1 confirming 0/19'],
      waiting: [],
      nextPollInMs: BLOCK_MS,
    },
  },
  {
    when: 'a reorganisation removes one of two waiting payments: the bucket is valued again without it',
    outputs: [output('a1', 30), output('a2', 'removed')],
    open: [accumulating('a1', '20'), accumulating('a2', '3')],
    buckets: [bucket('23.00')],
    expect: {
      steps: ['update a2 status=confirming confirmationCount=0 confirmedAt=null lastSeenAt=now updatedAt=now', 'save USDT/TRX 20.00'],
      announce: ['a2 confirming 0/19'],
      waiting: ['USDT/TRX 20.00'],
      nextPollInMs: BLOCK_MS,
    },
  },
  {
    when: 'an unconfirmed payment leaves the chain: it stays as it was',
    outputs: [output('d1', 'removed')],
    open: [confirming('d1', '30', 0)],
    expect: { steps: [], announce: [], waiting: [], nextPollInMs: BLOCK_MS },
  },
  {
    when: 'an expect-deposit window is open and nothing confirms',
    route: { expectDepositUntil: new Date(NOW.getTime() + 60_000), activeAt: EARLIER },
    expect: { steps: [], announce: [], waiting: [], nextPollInMs: SCHEDULE.expectPollSeconds * 1000 },
  },
  {
    when: 'the route has been idle for two idle periods: the interval has doubled twice',
    route: { activeAt: new Date(NOW.getTime() - 2 * SCHEDULE.idleSeconds * 1000) },
    expect: { steps: [], announce: [], waiting: [], nextPollInMs: 4 * REGULAR_MS },
  },
  {
    when: "a bucket's asset was not priced before the poll: it asks for that price and the destination's",
    outputs: [output('d1', REQUIRED)],
    open: [confirming('d1', '30', REQUIRED)],
    prices: {},
    expect: { unpriced: ['USDT/TRX', 'fUSD/ZANO'] },
  },
  {
    when: "the price of a bucket's asset is unavailable: the poll fails (and is retried at its next regular poll)",
    outputs: [output('d1', REQUIRED)],
    open: [confirming('d1', '30', REQUIRED)],
    prices: { ...MARKET, 'USDT/TRX': null },
    expect: { throws: /USDT\/TRX unavailable/ },
  },
  {
    when: 'screening holds the sender of a small confirmed deposit: it converts alone into review (screening_hold), the clean one waits',
    outputs: [output('d1', REQUIRED), output('d2', REQUIRED)],
    open: [confirming('d1', '3', REQUIRED), confirming('d2', '4', REQUIRED)],
    screening: { d1: 'held', d2: 'cleared' },
    expect: {
      steps: ['convert d1 (confirming, 3) to review screening_hold', 'save USDT/TRX 4.00', `update d2 ${JOINS}`],
      announce: ['d2 accumulating 19/19'],
      waiting: ['USDT/TRX 4.00'],
      nextPollInMs: REGULAR_MS,
    },
  },
  {
    when: 'screening holds the sender of a deposit already waiting in a bucket: it leaves it, and the bucket is valued again',
    outputs: [output('d1', REQUIRED), output('d2', REQUIRED)],
    open: [accumulating('d1', '3'), accumulating('d2', '4')],
    buckets: [bucket('7.00')],
    screening: { d1: 'held', d2: 'cleared' },
    expect: {
      steps: ['convert d1 (accumulating, 3) to review screening_hold', 'save USDT/TRX 4.00'],
      announce: [],
      waiting: ['USDT/TRX 4.00'],
      nextPollInMs: REGULAR_MS,
    },
  },
  {
    when: 'a held sender whose deposit was the bucket: the bucket is gone',
    outputs: [output('d1', REQUIRED)],
    open: [accumulating('d1', '3')],
    buckets: [bucket('3.00')],
    screening: { d1: 'held' },
    expect: {
      steps: ['convert d1 (accumulating, 3) to review screening_hold', 'delete USDT/TRX'],
      announce: [],
      waiting: [],
      nextPollInMs: REGULAR_MS,
    },
  },
  {
    when: 'a confirmed deposit whose sender has no verdict yet waits for it, and the route is polled again soon',
    outputs: [output('d1', REQUIRED)],
    open: [confirming('d1', '30', REQUIRED)],
    screening: { d1: 'pending' },
    expect: { steps: [], announce: [], waiting: [], nextPollInMs: SCREENING_RETRY_SECONDS * 1000 },
  },
  {
    when: 'a bucket one of whose deposits has a sender without a verdict yet is left as it is, however much it holds',
    outputs: [output('d1', REQUIRED), output('d2', REQUIRED)],
    open: [accumulating('d1', '20'), confirming('d2', '30', REQUIRED)],
    buckets: [bucket('20.00')],
    screening: { d1: 'pending', d2: 'cleared' },
    expect: { steps: [], announce: [], waiting: ['USDT/TRX 20.00'], nextPollInMs: SCREENING_RETRY_SECONDS * 1000 },
  },
  {
    when: "the destination's price is unavailable and the bucket only waits: it waits",
    outputs: [output('d1', REQUIRED)],
    open: [confirming('d1', '3', REQUIRED)],
    prices: { ...MARKET, 'fUSD/ZANO': null },
    expect: {
      steps: ['save USDT/TRX 3.00', `update d1 ${JOINS}`],
      announce: ['d1 accumulating 19/19'],
      waiting: ['USDT/TRX 3.00'],
      nextPollInMs: REGULAR_MS,
    },
  },
  {
    when: "the destination's price is unavailable and the bucket converts: the poll fails",
    outputs: [output('d1', REQUIRED)],
    open: [confirming('d1', '30', REQUIRED)],
    prices: { ...MARKET, 'fUSD/ZANO': null },
    expect: { throws: /fUSD\/ZANO unavailable/ },
  },
];

function run(row: Omit<Row, 'when' | 'expect'>) {
  const prices = new Map(
    Object.entries(row.prices ?? MARKET).map(([key, value]) => [
      key,
      () => {
        if (value === null) throw new Error(`${key} unavailable`);
        return new Money(value);
      },
    ]),
  );
  return decideRoutePoll(
    {
      route: { ...ROUTE, ...row.route },
      outputs: row.outputs ?? [],
      created: row.created ?? [],
      open: row.open ?? [],
      buckets: row.buckets ?? [],
      prices,
      ...(row.screening ? { screening: new Map(Object.entries(row.screening)) } : {}),
    },
    CONTEXT,
  );
}

describe('decideRoutePoll(seen, context): a poll of a permanent route (table)', () => {
  for (const row of ROWS) {
    it(row.when, () => {
      if ('throws' in row.expect) {
        expect(() => run(row)).to.throw(row.expect.throws);
        return;
      }
      const decision = run(row);
      if ('unpriced' in row.expect) {
        expect(decision).to.deep.equal({ kind: 'unpriced', assetKeys: row.expect.unpriced });
        return;
      }
      if (decision.kind !== 'decided') throw new Error(`unpriced: ${decision.assetKeys.join(', ')}`);
      expect(decision.steps.map(summary), 'steps').to.deep.equal(row.expect.steps);
      expect(
        decision.announce.map((d) => `${d.id} ${d.status} ${d.confirmationCount}/${d.requiredConfirmations}`),
        'announced',
      ).to.deep.equal(row.expect.announce);
      expect(
        decision.waiting.map((b) => `${b.asset}/${b.network} ${b.accumulatedUsd}`),
        'waiting',
      ).to.deep.equal(row.expect.waiting);
      expect(decision.nextPollAt.getTime() - NOW.getTime(), 'next poll').to.equal(row.expect.nextPollInMs);
      expect(decision.activeAt, 'active at').to.equal(row.expect.activeAt);
    });
  }

  it('prices an order at the route fee and markup, at the prices it was given', () => {
    const decision = run({
      outputs: [output('d1', REQUIRED)],
      open: [confirming('d1', '30', REQUIRED)],
      prices: { 'USDT/TRX': '1', 'fUSD/ZANO': '0.5' },
    });
    if (decision.kind !== 'decided') throw new Error('unpriced');
    const convert = decision.steps.find((s) => s.kind === 'convert');
    if (convert?.kind !== 'convert') throw new Error('no order');
    // 30 USD less 1.5 % (0.45 USD, below the 0.5 USD floor) is 29.5 USD: 59 fUSD at 0.5 USD.
    expect(convert.order).to.include({
      status: 'confirming',
      sourceAsset: 'USDT',
      destinationAsset: 'fUSD',
      sourceAmount: '30',
      receivedAmount: '30',
      expectedOutputAmount: '59',
      feeUsd: '0.5',
      feePercent: '1.5',
      markupPercent: '0.5',
      quotedRate: '2',
      sourceTxHash: 'tx-d1',
      depositAddress: ADDRESS,
      routeId: ROUTE.id,
      refundMode: 'sender',
      rateType: 'floating',
    });
  });
});

describe('depositsToRecord(route, addresses, outputs, recorded, context): what a poll records (table)', () => {
  const addresses = [{ address: ADDRESS, network: 'TRX' }];
  const rows: Array<{ when: string; outputs: RouteOutput[]; recorded?: string[]; expect: string[]; unrecordable?: string[] }> = [
    {
      when: 'a new output becomes a confirming deposit',
      outputs: [output('d1', 3, '30')],
      expect: ['tx-d1 USDT 30 confirming 3/19 30000000'],
    },
    {
      when: 'an output seen with more confirmations than required is recorded confirmed',
      outputs: [output('d1', 25, '30')],
      expect: ['tx-d1 USDT 30 confirming 19/19 30000000 confirmed'],
    },
    {
      when: 'an output below the dust floor is recorded as dust',
      outputs: [output('d1', 3, '0.009')],
      expect: ['tx-d1 USDT 0.009 dust 3/19 9000'],
    },
    { when: 'an output already recorded is not recorded again', outputs: [output('d1', 3, '30')], recorded: ['tx-d1:0'], expect: [] },
    { when: 'a removed output is not recorded', outputs: [output('d1', 'removed', '30')], expect: [] },
    { when: 'an output to another address is not recorded', outputs: [{ ...output('d1', 3, '30'), address: 'TOther' }], expect: [] },
    {
      when: 'an output in an asset the route does not take is not recorded',
      outputs: [{ ...output('d1', 3, '30'), asset: 'USDC' }],
      expect: [],
    },
    {
      when: 'an output with more decimals than its asset has is left out with its error, and the others are recorded',
      outputs: [output('d1', 3, '1.0000001'), output('d2', 3, '2')],
      expect: ['tx-d2 USDT 2 confirming 3/19 2000000'],
      unrecordable: ['tx-d1'],
    },
  ];
  for (const row of rows) {
    it(row.when, () => {
      const found = depositsToRecord(ROUTE, addresses, row.outputs, new Set(row.recorded ?? []), CONTEXT);
      expect(
        found.deposits.map(
          (d) =>
            `${d.txHash} ${d.asset} ${d.amount} ${d.status} ${d.confirmationCount}/${d.requiredConfirmations} ${d.amountBaseUnits}` +
            (d.confirmedAt ? ' confirmed' : ''),
        ),
      ).to.deep.equal(row.expect);
      expect(found.unrecordable.map((u) => u.txHash)).to.deep.equal(row.unrecordable ?? []);
    });
  }
});

describe('nextPollAt(route, open, activeAt, context)', () => {
  it('never polls again sooner than the minimum gap, however short the block time', () => {
    const at = nextPollAt({ expectDepositUntil: null }, [confirming('d1', '30')], NOW, {
      ...CONTEXT,
      schedule: { ...SCHEDULE, blockMs: () => 1 },
    });
    expect(at.getTime() - NOW.getTime()).to.equal(50);
  });
});
