/**
 * What one poll of a permanent route decides (docs/architecture.md#routes-and-the-wallet-proof), as pure functions of what the poll's transaction
 * read on the locked route; the route service (services/routes.ts) reads, decides and saves.
 * 1. depositsToRecord: which of the ledger's outputs paid to the route are new deposits (`confirming`, or
 *    `dust` below the asset's dust floor: recorded, and nothing more).
 * 2. decideRoutePoll, on the route's deposits without an order (the new ones among them):
 *    - a deposit whose payment a reorganisation removed before it was converted counts for nothing again;
 *    - the others take the chain's confirmation count;
 *    - each same-asset bucket of confirmed deposits is decided (accumulation.ts decideBucket): it waits as
 *      `accumulating` (the bucket's valuation is stored once, as a bucket), converts in one order (which runs
 *      the swap lifecycle at the route's fee), or converts alone into review above the automatic maximum;
 *    - a confirmed deposit whose sender screening denied or held converts alone, into review
 *      (`screening_hold`), whatever its amount; a bucket holding one whose sender has no verdict yet is
 *      left as it is until a poll has the verdict;
 *    - a `permanent_deposit.updated` message for every deposit it changed (and no other: the deposits already
 *      waiting in a bucket that grows are not rewritten), and when to poll the route next.
 * Prices are asked before the transaction (they are given here, by asset key); a decision that needs one it
 * was not given says so (`unpriced`) instead of deciding.
 */
import { decideBucket, idlePollSeconds, isDust, usd } from './accumulation.js';
import { assetKey, findAsset, type Catalog, type CatalogAsset } from './catalog.js';
import { Money, type Amount } from './money.js';
import { marketRate, priceRouteOrder } from './pricing.js';
import { toBaseUnits, type BucketRecord, type DepositRecord } from './route-deposit-view.js';
import { TERMS_VERSION, type SwapRecord } from './swap-view.js';

/** The route as a poll reads it. Percentages and USD amounts are decimal strings. */
export interface PolledRoute {
  id: string;
  partnerId: string;
  externalUser: string;
  destinationAsset: string;
  destinationNetwork: string;
  destinationAddress: string;
  feePercent: string;
  markupPercent: string;
  feeFloorUsd: string;
  minSwapUsd: string;
  maxAutoSwapUsd: string;
  expectDepositUntil: Date | null;
  /** The route's last sign of life: idle polling backs off from it. */
  activeAt: Date;
  /** The assets (`ASSET/NETWORK`) that can be paid into the route. */
  assetKeys: string[];
}

/** A transaction output paid to one of the route's addresses, as the chain ledger shows it. */
export interface RouteOutput {
  network: string;
  txHash: string;
  outputIndex: number;
  asset: string;
  address: string;
  amount: string;
  fromAddress: string | null;
  confirmations: number;
  seenAt: Date;
  /** A reorganisation took it off the chain. */
  removed: boolean;
}

/** A deposit to record (the store gives it its id). */
export type NewDeposit = Omit<DepositRecord, 'id' | 'orderId' | 'refundTxHash'>;

/** How often a route is polled (ROUTE_POLL_SECONDS and the others); all in seconds but `blockMs`. */
export interface PollSchedule {
  pollSeconds: number;
  expectPollSeconds: number;
  /** The idle backoff: the interval doubles after each idle period, up to the maximum. */
  idleSeconds: number;
  pollMaxSeconds: number;
  /** About how long a block of `network` takes: a route polls again then while one of its deposits confirms. */
  blockMs: (network: string) => number;
}

/** What a poll decides with besides what it read. */
export interface RoutePollContext {
  catalog: Catalog;
  /** ROUTE_DUST_FLOOR_FACTOR: multiplies every catalogue dust floor (decimal string). */
  dustFloorFactor: string;
  schedule: PollSchedule;
  now: Date;
}

/**
 * USD prices by asset key, asked before the poll's transaction: each returns the price or throws why it is
 * unavailable (then the poll fails and is retried at its next regular poll).
 */
export type RoutePrices = ReadonlyMap<string, () => Amount>;

/** What a poll read, after recording the new deposits. */
export interface RoutePollObservations {
  route: PolledRoute;
  /** Every output paid to the route's addresses since it was created, removed ones included. */
  outputs: RouteOutput[];
  /** The deposits this poll recorded, dust included. */
  created: DepositRecord[];
  /** The route's deposits without an order (the new ones included, dust not), oldest first. */
  open: DepositRecord[];
  /** The route's waiting buckets as stored. */
  buckets: BucketRecord[];
  prices: RoutePrices;
  /** How screening stands on the sender of each open deposit, by deposit id; absent: cleared (screening is off). */
  screening?: ReadonlyMap<string, SenderStanding>;
}

/** How screening stands on a deposit's sender: allowed (or nothing to screen), denied or held, or no verdict yet. */
export type SenderStanding = 'cleared' | 'held' | 'pending';

/** How soon a route with a confirmed deposit whose sender has no screening verdict yet is polled again. */
export const SCREENING_RETRY_SECONDS = 5;

/** A new route order's fields (store/swap-transitions.ts createRouteOrder). */
export type RouteOrderDraft = Omit<
  SwapRecord,
  | 'id'
  | 'mode'
  | 'status'
  | 'depositMemo'
  | 'depositInstructionsJws'
  | 'lateDeposit'
  | 'actualOutputAmount'
  | 'settlementTxHash'
  | 'refundTxHash'
  | 'refundAmount'
  | 'failureCode'
  | 'armedFailure'
  | 'markupAmount'
  | 'markupUsd'
  | 'deposits'
  | 'updatedAt'
> & { status: 'confirming' | 'accumulating' };

/** One write of a poll; they are applied in order. */
export type RoutePollStep =
  | { kind: 'updateDeposit'; depositId: string; fields: Partial<DepositRecord> }
  /**
   * Creates the order, its deposits joining it, and moves it on: to review (with `failureCode` when it says
   * why: a sender screening did not clear), or to exchanging.
   */
  | { kind: 'convert'; depositIds: string[]; order: RouteOrderDraft; review: boolean; failureCode?: string }
  | { kind: 'saveBucket'; bucket: BucketRecord }
  | { kind: 'deleteBucket'; bucket: BucketRecord };

/** What a poll does. */
export type RoutePollDecision =
  | {
      kind: 'decided';
      steps: RoutePollStep[];
      /** The deposits to announce (`permanent_deposit.updated`), as they are after the steps. */
      announce: DepositRecord[];
      /** The route's waiting buckets after the steps: the announced waiting deposits show their figures. */
      waiting: BucketRecord[];
      nextPollAt: Date;
      /** The route's new last sign of life, when a payment (not dust) arrived. */
      activeAt: Date | undefined;
    }
  /** The decision needs the prices of these asset keys, which it was not given. */
  | { kind: 'unpriced'; assetKeys: string[] };

/** Polls never follow each other closer than this, whatever the block time. */
export const MIN_POLL_GAP_MS = 50;

const outputOf = (o: { txHash: string; outputIndex: number }) => `${o.txHash}:${o.outputIndex}`;
const bucketOf = (d: { asset: string; network: string }) => `${d.asset}/${d.network}`;

function assetOf(catalog: Catalog, symbol: string, network: string): CatalogAsset {
  const asset = findAsset(catalog, symbol, network);
  if (!asset) throw new Error(`route deposit names ${symbol}/${network}, which the catalogue no longer lists`);
  return asset;
}

/**
 * The deposits to record: the outputs that pay one of the route's `addresses` on its network, in an asset the
 * route takes, and that are not `recorded` (`hash:index`) yet. An output the service cannot account for (an
 * asset the catalogue no longer lists, more decimals than the asset has) is left out with its error, for an
 * operator, so that it does not stop the others.
 */
export function depositsToRecord(
  route: Pick<PolledRoute, 'id' | 'assetKeys'>,
  addresses: Array<{ address: string; network: string }>,
  outputs: RouteOutput[],
  recorded: ReadonlySet<string>,
  context: Pick<RoutePollContext, 'catalog' | 'dustFloorFactor' | 'now'>,
): { deposits: NewDeposit[]; unrecordable: Array<{ txHash: string; error: unknown }> } {
  const at = context.now;
  const accepted = new Set(addresses.map((a) => `${a.address} ${a.network}`));
  const takes = new Set(route.assetKeys);
  const deposits: NewDeposit[] = [];
  const unrecordable: Array<{ txHash: string; error: unknown }> = [];
  for (const tx of outputs) {
    if (tx.removed || recorded.has(outputOf(tx))) continue;
    if (!accepted.has(`${tx.address} ${tx.network}`) || !takes.has(assetKey({ symbol: tx.asset, network: tx.network }))) continue;
    try {
      const asset = assetOf(context.catalog, tx.asset, tx.network);
      const required = context.catalog.networks[asset.network].confirmations;
      const count = Math.min(tx.confirmations, required);
      const dust = isDust(tx.amount, asset.dustFloor, context.dustFloorFactor);
      deposits.push({
        routeId: route.id,
        asset: tx.asset,
        network: tx.network,
        address: tx.address,
        txHash: tx.txHash,
        outputIndex: tx.outputIndex,
        fromAddress: tx.fromAddress ?? '',
        amount: tx.amount,
        amountBaseUnits: toBaseUnits(new Money(tx.amount).toFixed(), asset.precision),
        broadcastAt: tx.seenAt,
        confirmationCount: count,
        requiredConfirmations: required,
        // Dust is recorded as first seen and never looked at again (its confirmations are not followed).
        status: dust ? 'dust' : 'confirming',
        firstSeenAt: at,
        lastSeenAt: at,
        confirmedAt: count >= required ? at : null,
        createdAt: at,
        updatedAt: at,
      });
    } catch (error) {
      unrecordable.push({ txHash: tx.txHash, error });
    }
  }
  return { deposits, unrecordable };
}

/** Decides a poll of a route on what its transaction read (see the module comment). */
export function decideRoutePoll(seen: RoutePollObservations, context: RoutePollContext): RoutePollDecision {
  const { route } = seen;
  const at = context.now;
  const steps: RoutePollStep[] = [];
  const update = (deposit: DepositRecord, fields: Partial<DepositRecord>): DepositRecord => {
    steps.push({ kind: 'updateDeposit', depositId: deposit.id, fields });
    return { ...deposit, ...fields };
  };
  const present = seen.outputs.filter((o) => !o.removed);
  const removed = new Set(seen.outputs.filter((o) => o.removed).map(outputOf));
  const confirmations = new Map(present.map((o) => [outputOf(o), o.confirmations]));

  const changed = new Map<string, DepositRecord>();
  // Dust is neither announced nor a sign of life: paying it must not keep a route polled often.
  const paid = seen.created.filter((d) => d.status !== 'dust');
  for (const deposit of paid) changed.set(deposit.id, deposit);

  const open: DepositRecord[] = [];
  // The buckets a deposit left (its payment left the chain): valued again, or removed when empty.
  const left = new Set<string>();
  for (let deposit of seen.open) {
    if (removed.has(outputOf(deposit)) && (deposit.confirmationCount > 0 || deposit.status === 'accumulating')) {
      // A reorganisation took the payment back before it was converted: it counts for nothing (out of its
      // bucket, no confirmations) until a block holds it again, and then it confirms afresh.
      if (deposit.status === 'accumulating') left.add(bucketOf(deposit));
      deposit = update(deposit, { status: 'confirming', confirmationCount: 0, confirmedAt: null, lastSeenAt: at, updatedAt: at });
      changed.set(deposit.id, deposit);
    } else if (deposit.status === 'confirming') {
      // The chain's count; a transaction that left the chain stays where it was.
      const onChain = confirmations.get(outputOf(deposit)) ?? deposit.confirmationCount;
      const count = Math.min(onChain, deposit.requiredConfirmations);
      if (count > deposit.confirmationCount) {
        deposit = update(deposit, {
          confirmationCount: count,
          lastSeenAt: at,
          confirmedAt: count >= deposit.requiredConfirmations ? at : null,
          updatedAt: at,
        });
        changed.set(deposit.id, deposit);
      }
    }
    open.push(deposit);
  }

  const buckets = new Map<string, DepositRecord[]>();
  // Confirmed deposits from a sender screening did not clear: each is held alone, never accumulated.
  const held: DepositRecord[] = [];
  const unscreened = new Set<string>();
  for (const deposit of open) {
    if (deposit.confirmationCount < deposit.requiredConfirmations) continue;
    const key = bucketOf(deposit);
    const standing = seen.screening?.get(deposit.id) ?? 'cleared';
    if (standing === 'held') {
      // One waiting in a bucket leaves it (the bucket is valued again, or removed).
      if (deposit.status === 'accumulating') left.add(key);
      held.push(deposit);
      continue;
    }
    // A sender without a verdict yet: its bucket is left as it is until the next poll has one.
    if (standing === 'pending') unscreened.add(key);
    buckets.set(key, [...(buckets.get(key) ?? []), deposit]);
  }
  // A bucket or a held deposit needs its asset's price, and the destination's should it convert.
  const destinationKey = assetKey({ symbol: route.destinationAsset, network: route.destinationNetwork });
  const converting = [...[...buckets.keys()].filter((key) => !unscreened.has(key)), ...held.map(bucketOf)];
  const needed = converting.length > 0 ? [...converting, destinationKey] : [];
  const unpriced = [...new Set(needed)].filter((key) => !seen.prices.has(key));
  if (unpriced.length > 0) return { kind: 'unpriced', assetKeys: unpriced };

  for (const deposit of held) {
    const pricesUsd = { source: seen.prices.get(bucketOf(deposit))!(), destination: seen.prices.get(destinationKey)!() };
    const order = routeOrderOf(route, [deposit], deposit.amount, pricesUsd, context);
    steps.push({ kind: 'convert', depositIds: [deposit.id], order, review: true, failureCode: 'screening_hold' });
    changed.delete(deposit.id);
  }

  const waiting = new Map(seen.buckets.map((b) => [bucketOf(b), b]));
  const limits = { minSwapUsd: route.minSwapUsd, maxAutoSwapUsd: route.maxAutoSwapUsd };
  for (const [key, deposits] of buckets) {
    if (unscreened.has(key)) continue;
    let waits = false;
    const price = seen.prices.get(key)!();
    for (const decision of decideBucket(deposits, price, limits)) {
      const ids = new Set(decision.depositIds);
      const members = deposits.filter((d) => ids.has(d.id));
      if (decision.kind === 'convert') {
        const destinationPriceUsd = seen.prices.get(destinationKey)!();
        const order = routeOrderOf(route, members, decision.amount, { source: price, destination: destinationPriceUsd }, context);
        steps.push({ kind: 'convert', depositIds: members.map((d) => d.id), order, review: decision.review });
        // The order announces its deposits itself.
        for (const d of members) changed.delete(d.id);
        continue;
      }
      // A waiting bucket is valued again only when its deposits change, so its figures and valued_at
      // describe the moment it last grew; the threshold is still checked at the current price every poll.
      // Only the deposits that join it are written and announced: one write each, and one of the bucket.
      waits = true;
      const joining = members.filter((d) => d.status !== 'accumulating');
      if (joining.length === 0 && !left.has(key)) continue;
      const bucket: BucketRecord = {
        routeId: route.id,
        asset: deposits[0].asset,
        network: deposits[0].network,
        accumulatedUsd: decision.accumulatedUsd,
        thresholdUsd: usd(new Money(route.minSwapUsd)),
        valuedAt: at,
      };
      steps.push({ kind: 'saveBucket', bucket });
      waiting.set(key, bucket);
      for (const member of joining) changed.set(member.id, update(member, { status: 'accumulating', updatedAt: at }));
    }
    // Its waiting deposits joined an order: the bucket is gone.
    if (!waits && waiting.has(key)) {
      steps.push({ kind: 'deleteBucket', bucket: waiting.get(key)! });
      waiting.delete(key);
    }
  }
  // A bucket every deposit of which left the chain is gone too.
  for (const key of left) {
    if (buckets.has(key) || !waiting.has(key)) continue;
    steps.push({ kind: 'deleteBucket', bucket: waiting.get(key)! });
    waiting.delete(key);
  }

  const activeAt = paid.length > 0 ? at : undefined;
  const next = nextPollAt(route, open, activeAt ?? route.activeAt, context);
  const screeningRetry = new Date(at.getTime() + SCREENING_RETRY_SECONDS * 1000);
  return {
    kind: 'decided',
    steps,
    announce: [...changed.values()],
    waiting: [...waiting.values()],
    nextPollAt: unscreened.size > 0 && next > screeningRetry ? screeningRetry : next,
    activeAt,
  };
}

/**
 * When to poll the route next: every `pollSeconds`, doubled after each `idleSeconds` the route has been idle
 * since `activeAt`, up to `pollMaxSeconds`; every `expectPollSeconds` while an expect-deposit window is open;
 * and about a block later while one of its `open` deposits confirms (the watcher's tip will have moved).
 */
export function nextPollAt(
  route: Pick<PolledRoute, 'expectDepositUntil'>,
  open: DepositRecord[],
  activeAt: Date,
  context: Pick<RoutePollContext, 'schedule' | 'now'>,
): Date {
  const { schedule, now: at } = context;
  const fast = route.expectDepositUntil !== null && at < route.expectDepositUntil;
  const regularSeconds = fast
    ? schedule.expectPollSeconds
    : idlePollSeconds((at.getTime() - activeAt.getTime()) / 1000, {
        pollSeconds: schedule.pollSeconds,
        idlePeriodSeconds: schedule.idleSeconds,
        maxSeconds: schedule.pollMaxSeconds,
      });
  let next = at.getTime() + regularSeconds * 1000;
  for (const deposit of open) {
    if (deposit.confirmationCount >= deposit.requiredConfirmations || deposit.orderId !== null) continue;
    next = Math.min(next, at.getTime() + schedule.blockMs(deposit.network));
  }
  return new Date(Math.max(next, at.getTime() + MIN_POLL_GAP_MS));
}

// The order converting `deposits` (confirmed, of one bucket) of `amount` in total, priced at the route's fee.
function routeOrderOf(
  route: PolledRoute,
  deposits: DepositRecord[],
  amount: string,
  pricesUsd: { source: Amount; destination: Amount },
  context: Pick<RoutePollContext, 'catalog' | 'now'>,
): RouteOrderDraft {
  const at = context.now;
  const first = deposits[0];
  const source = assetOf(context.catalog, first.asset, first.network);
  const destination = assetOf(context.catalog, route.destinationAsset, route.destinationNetwork);
  const feePercent = new Money(route.feePercent).plus(route.markupPercent).toFixed();
  const estimate = priceRouteOrder({
    destination,
    sourceAmount: new Money(amount),
    sourcePriceUsd: pricesUsd.source,
    destinationPriceUsd: pricesUsd.destination,
    feePercent,
    feeFloorUsd: route.feeFloorUsd,
    markupPercent: route.markupPercent,
  });
  return {
    status: deposits.some((d) => d.status === 'accumulating') ? 'accumulating' : 'confirming',
    partnerId: route.partnerId,
    quoteId: null,
    externalUser: route.externalUser,
    sourceAsset: source.symbol,
    sourceNetwork: source.network,
    destinationAsset: destination.symbol,
    destinationNetwork: destination.network,
    destination: route.destinationAddress,
    destinationMemo: null,
    refundMode: 'sender',
    refundAddress: null,
    refundMemo: null,
    rateType: 'floating',
    sourceAmount: amount,
    depositAmount: amount,
    expectedOutputAmount: estimate.receiveAmount,
    minimumOutputAmount: null,
    quotedRate: marketRate(destination, pricesUsd.source, pricesUsd.destination).toFixed(),
    feeUsd: estimate.feeUsd,
    requiredConfirmations: first.requiredConfirmations,
    quoteExpiresAt: at,
    confirmationDeadline: null,
    expiresAt: at,
    lateDepositPolicy: 'market_rate',
    amountMismatchPolicy: null,
    excessRefundAmount: null,
    excessRefundTxHash: null,
    termsVersion: TERMS_VERSION,
    createdAt: at,
    depositAddress: first.address,
    sourceTxHash: deposits[deposits.length - 1].txHash,
    receivedAmount: amount,
    receivedFrom: first.fromAddress,
    confirmationCount: first.requiredConfirmations,
    routeId: route.id,
    feePercent,
    feeFloorUsd: route.feeFloorUsd,
    markupPercent: route.markupPercent,
  };
}
