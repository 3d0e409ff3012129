/**
 * Watches permanent routes' reusable addresses (DESIGN 6.7). Each route is polled on its own schedule, kept
 * in `permanent_routes.next_poll_at`: every ROUTE_POLL_SECONDS, doubled after each ROUTE_IDLE_SECONDS the
 * route has been idle (no deposit, no expect-deposit call) up to ROUTE_POLL_MAX_SECONDS; every
 * ROUTE_EXPECT_POLL_SECONDS while an expect-deposit window is open; and at the next block while one of its
 * deposits is confirming. A sweeper on every instance (startRoutePolling) polls the routes that are due,
 * those inside an expect-deposit window first; the schedule lives in the route row, so no job can be lost
 * between a commit and the next poll, and a failing poll is simply due again later.
 * A poll, in one transaction on the locked route:
 * 1. records transaction outputs paid to the route's addresses that it has not seen (`confirming`, or
 *    `dust` below the asset's dust floor: recorded, and nothing more);
 * 2. counts the confirmations of those still confirming;
 * 3. decides each same-asset bucket of confirmed deposits without an order (domain/accumulation.ts): wait
 *    as `accumulating` (the bucket's valuation is stored once, in `route_buckets`), convert in one order
 *    (which runs the swap lifecycle at the route's fee), or convert alone into review above the automatic
 *    maximum;
 * 4. queues a `permanent_deposit.updated` message for every deposit it changed (and no other: the deposits
 *    already waiting in a bucket that grows are not rewritten), and sets the next poll.
 * The route lock makes polls of one route run one at a time, so two workers never convert a deposit twice.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { RatesAdapter } from '../adapters/rates.js';
import { decideBucket, idlePollSeconds, isDust, usd, type BucketDecision } from '../domain/accumulation.js';
import { assetKey, findAsset, type Catalog, type CatalogAsset } from '../domain/catalog.js';
import { Money, type Amount } from '../domain/money.js';
import { marketRate, priceRouteOrder } from '../domain/pricing.js';
import { toBaseUnits, type BucketRecord, type DepositRecord } from '../domain/route-deposit-view.js';
import { TERMS_VERSION } from '../domain/swap-view.js';
import { transaction } from '../store/after-commit.js';
import { listOutputsToAddresses } from '../store/chain-ledger.js';
import {
  deleteBucket,
  insertDepositMessages,
  insertNewDeposits,
  listBuckets,
  listOpenDeposits,
  listRecordedOutputs,
  saveBucket,
  updateDeposit,
} from '../store/route-deposits.js';
import { listDueRoutes, listRouteAddresses, lockDueRoute, nextDuePoll, updateRoutePolling, type RouteRecord } from '../store/routes.js';
import { createRouteOrder, transitionSwap } from '../store/swap-transitions.js';

/** What polling needs. */
export interface RouteDepositsDeps {
  knex: Knex;
  catalog: Catalog;
  rates: RatesAdapter;
  now: () => Date;
  /** About how long a block of `network` takes: a route polls again then while one of its deposits confirms. */
  blockMs: (network: string) => number;
  /** ROUTE_POLL_SECONDS and ROUTE_EXPECT_POLL_SECONDS. */
  pollSeconds: number;
  expectPollSeconds: number;
  /** ROUTE_IDLE_SECONDS and ROUTE_POLL_MAX_SECONDS: the idle backoff. */
  idleSeconds: number;
  pollMaxSeconds: number;
  /** ROUTE_DUST_FLOOR_FACTOR: multiplies every catalogue dust floor (decimal string). */
  dustFloorFactor: string;
  logger?: Logger;
}

/** The outcome of a poll: when to poll again, and the orders it created (the caller moves them on). */
export interface PollResult {
  nextPollAt: Date | undefined;
  orderIds: string[];
}

// Polls never follow each other closer than this, whatever the block time.
const MIN_POLL_GAP_MS = 50;

/** Creates the route poller. */
export function createRouteDeposits(deps: RouteDepositsDeps) {
  const assetOf = (symbol: string, network: string): CatalogAsset => {
    const asset = findAsset(deps.catalog, symbol, network);
    if (!asset) throw new Error(`route deposit names ${symbol}/${network}, which the catalogue no longer lists`);
    return asset;
  };

  // Records the outputs paid to the route that the chain ledger shows and that are not recorded yet; returns
  // them, the ledger's view of every output on the chain (for confirmations), and the outputs a
  // reorganisation removed.
  async function detect(
    trx: Knex.Transaction,
    route: RouteRecord,
    at: Date,
  ): Promise<{ created: DepositRecord[]; confirmations: Map<string, number>; removed: Set<string> }> {
    // Returns every new row, dust included; the caller tells them apart by status.
    const addresses = await listRouteAddresses(trx, [route.id]);
    // An output counts when it pays the route's address on its network in an asset the route takes.
    const accepted = new Set(addresses.map((a) => `${a.address} ${a.network}`));
    const takes = new Set(route.assetKeys);
    const listed = await listOutputsToAddresses(trx, [...new Set(addresses.map((a) => a.address))], route.createdAt);
    const seen = listed.filter((output) => !output.removed);
    const removed = new Set(listed.filter((output) => output.removed).map((tx) => `${tx.txHash}:${tx.outputIndex}`));
    const confirmations = new Map(seen.map((tx) => [`${tx.txHash}:${tx.outputIndex}`, tx.confirmations]));
    const recorded = await listRecordedOutputs(
      trx,
      route.id,
      seen.map((tx) => tx.txHash),
    );
    const fresh = seen.filter(
      (tx) =>
        !recorded.has(`${tx.txHash}:${tx.outputIndex}`) &&
        accepted.has(`${tx.address} ${tx.network}`) &&
        takes.has(assetKey({ symbol: tx.asset, network: tx.network })),
    );
    const rows = [];
    for (const tx of fresh) {
      try {
        const asset = assetOf(tx.asset, tx.network);
        const required = deps.catalog.networks[asset.network].confirmations;
        const count = Math.min(tx.confirmations, required);
        const dust = isDust(tx.amount, asset.dustFloor, deps.dustFloorFactor);
        rows.push({
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
          status: dust ? ('dust' as const) : ('confirming' as const),
          firstSeenAt: at,
          lastSeenAt: at,
          confirmedAt: count >= required ? at : null,
          createdAt: at,
          updatedAt: at,
        });
      } catch (err) {
        // One output the service cannot account for (an asset no longer listed, more decimals than the asset
        // has) must not stop the route: it is left for an operator and the others go on.
        deps.logger?.error({ err, routeId: route.id, txHash: tx.txHash }, 'route deposit cannot be recorded; skipped');
      }
    }
    return { created: await insertNewDeposits(trx, rows), confirmations, removed };
  }

  async function convert(
    trx: Knex.Transaction,
    route: RouteRecord,
    deposits: DepositRecord[],
    decision: Extract<BucketDecision, { kind: 'convert' }>,
    sourcePriceUsd: Amount,
    at: Date,
  ): Promise<string> {
    const first = deposits[0];
    const source = assetOf(first.asset, first.network);
    const destination = assetOf(route.destinationAsset, route.destinationNetwork);
    const destinationPriceUsd = await deps.rates.priceUsd(destination.symbol, destination.network, at);
    const feePercent = new Money(route.feePercent).plus(route.markupPercent).toFixed();
    const estimate = priceRouteOrder({
      destination,
      sourceAmount: new Money(decision.amount),
      sourcePriceUsd,
      destinationPriceUsd,
      feePercent,
      feeFloorUsd: route.feeFloorUsd,
      markupPercent: route.markupPercent,
    });
    const created = await createRouteOrder(
      trx,
      {
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
        sourceAmount: decision.amount,
        depositAmount: decision.amount,
        expectedOutputAmount: estimate.receiveAmount,
        minimumOutputAmount: null,
        quotedRate: marketRate(destination, sourcePriceUsd, destinationPriceUsd).toFixed(),
        feeUsd: estimate.feeUsd,
        requiredConfirmations: first.requiredConfirmations,
        quoteExpiresAt: at,
        expiresAt: at,
        lateDepositPolicy: 'market_rate',
        termsVersion: TERMS_VERSION,
        createdAt: at,
        depositAddress: first.address,
        sourceTxHash: deposits[deposits.length - 1].txHash,
        receivedAmount: decision.amount,
        receivedFrom: first.fromAddress,
        confirmationCount: first.requiredConfirmations,
        routeId: route.id,
        feePercent,
        feeFloorUsd: route.feeFloorUsd,
        markupPercent: route.markupPercent,
      },
      deposits.map((d) => d.id),
      at,
    );
    await transitionSwap(trx, created.swap, decision.review ? 'review' : 'exchanging', {}, at);
    return created.swap.id;
  }

  async function pollLocked(trx: Knex.Transaction, route: RouteRecord, at: Date, onOrder?: OrderCallback): Promise<PollResult> {
    const changed = new Map<string, DepositRecord>();
    const detected = await detect(trx, route, at);
    // Dust is neither announced nor a sign of life: paying it must not keep a route polled often.
    const paid = detected.created.filter((d) => d.status !== 'dust');
    for (const deposit of paid) changed.set(deposit.id, deposit);

    const open: DepositRecord[] = [];
    // The buckets a deposit left (its payment left the chain): valued again, or removed when empty.
    const left = new Set<string>();
    for (let deposit of await listOpenDeposits(trx, route.id)) {
      const output = `${deposit.txHash}:${deposit.outputIndex}`;
      if (detected.removed.has(output) && (deposit.confirmationCount > 0 || deposit.status === 'accumulating')) {
        // A reorganisation took the payment back before it was converted: it counts for nothing (out of its
        // bucket, no confirmations) until a block holds it again, and then it confirms afresh.
        if (deposit.status === 'accumulating') left.add(`${deposit.asset}/${deposit.network}`);
        deposit = await updateDeposit(trx, deposit.id, {
          status: 'confirming',
          confirmationCount: 0,
          confirmedAt: null,
          lastSeenAt: at,
          updatedAt: at,
        });
        changed.set(deposit.id, deposit);
      } else if (deposit.status === 'confirming') {
        // The chain's count; a transaction that left the chain stays where it was.
        const onChain = detected.confirmations.get(`${deposit.txHash}:${deposit.outputIndex}`) ?? deposit.confirmationCount;
        const confirmations = Math.min(onChain, deposit.requiredConfirmations);
        if (confirmations > deposit.confirmationCount) {
          deposit = await updateDeposit(trx, deposit.id, {
            confirmationCount: confirmations,
            lastSeenAt: at,
            confirmedAt: confirmations >= deposit.requiredConfirmations ? at : null,
            updatedAt: at,
          });
          changed.set(deposit.id, deposit);
        }
      }
      open.push(deposit);
    }

    const buckets = new Map<string, DepositRecord[]>();
    const inDecision = (decision: BucketDecision) => new Set(decision.depositIds);
    for (const deposit of open) {
      if (deposit.confirmationCount < deposit.requiredConfirmations) continue;
      const key = `${deposit.asset}/${deposit.network}`;
      buckets.set(key, [...(buckets.get(key) ?? []), deposit]);
    }
    const orderIds: string[] = [];
    const stored = await listBuckets(trx, route.id);
    const waiting = new Map(stored.map((b) => [`${b.asset}/${b.network}`, b]));
    for (const [key, deposits] of buckets) {
      let waits = false;
      const price = await deps.rates.priceUsd(deposits[0].asset, deposits[0].network, at);
      const limits = { minSwapUsd: route.minSwapUsd, maxAutoSwapUsd: route.maxAutoSwapUsd };
      for (const decision of decideBucket(deposits, price, limits)) {
        const ids = inDecision(decision);
        const members = deposits.filter((d) => ids.has(d.id));
        if (decision.kind === 'convert') {
          const orderId = await convert(trx, route, members, decision, price, at);
          // Queued with the order: if anything after the commit fails, a worker still carries it on.
          await onOrder?.(orderId, trx);
          orderIds.push(orderId);
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
        await saveBucket(trx, bucket);
        waiting.set(key, bucket);
        for (const member of joining) {
          changed.set(member.id, await updateDeposit(trx, member.id, { status: 'accumulating', updatedAt: at }));
        }
      }
      // Its waiting deposits joined an order: the bucket is gone.
      if (!waits && waiting.has(key)) {
        await deleteBucket(trx, waiting.get(key)!);
        waiting.delete(key);
      }
    }
    // A bucket every deposit of which left the chain is gone too.
    for (const key of left) {
      if (buckets.has(key) || !waiting.has(key)) continue;
      await deleteBucket(trx, waiting.get(key)!);
      waiting.delete(key);
    }
    await insertDepositMessages(trx, route.partnerId, route.id, [...changed.values()], null, [...waiting.values()]);

    const fast = route.expectDepositUntil !== null && at < route.expectDepositUntil;
    const activeAt = paid.length > 0 ? at : route.activeAt;
    const regularSeconds = fast
      ? deps.expectPollSeconds
      : idlePollSeconds((at.getTime() - activeAt.getTime()) / 1000, {
          pollSeconds: deps.pollSeconds,
          idlePeriodSeconds: deps.idleSeconds,
          maxSeconds: deps.pollMaxSeconds,
        });
    // While a deposit confirms, the route looks again about a block later (the watcher's tip will have moved).
    let next = at.getTime() + regularSeconds * 1000;
    for (const deposit of open) {
      if (deposit.confirmationCount >= deposit.requiredConfirmations || deposit.orderId !== null) continue;
      next = Math.min(next, at.getTime() + deps.blockMs(deposit.network));
    }
    const nextPollAt = new Date(Math.max(next, at.getTime() + MIN_POLL_GAP_MS));
    await updateRoutePolling(trx, route.id, nextPollAt, paid.length > 0 ? at : undefined);
    return { nextPollAt, orderIds };
  }

  return {
    /**
     * Polls route `routeId` now if it is due (`next_poll_at` has come) and no other worker holds it; with
     * `force`, whenever it is free. `onOrder` runs in the poll's transaction for each order created.
     */
    async poll(routeId: string, options: { force?: boolean; onOrder?: OrderCallback } = {}): Promise<PollResult> {
      return transaction(deps.knex, async (trx) => {
        const at = deps.now();
        const route = await lockDueRoute(trx, routeId, options.force ? undefined : at);
        if (!route) return { nextPollAt: undefined, orderIds: [] };
        return pollLocked(trx, route, at, options.onOrder);
      });
    },

    /** Moves a route whose poll failed to its next regular poll, so it is retried without spinning. */
    async postpone(routeId: string): Promise<void> {
      const at = deps.now();
      await transaction(deps.knex, async (trx) => {
        await updateRoutePolling(trx, routeId, new Date(at.getTime() + deps.pollSeconds * 1000));
      });
    },
  };
}

/** Called in a poll's transaction for each order it created. */
export type OrderCallback = (orderId: string, trx: Knex.Transaction) => Promise<void>;

// How many due routes one sweep takes, and the bounds of its sleep between sweeps.
const SWEEP_BATCH = 16;
const MIN_SLEEP_MS = 10;
const MAX_SLEEP_MS = 1_000;
// The least time from one sweep's start to the next (unless a full batch left routes due): expect-deposit
// calls arriving together, or a partner calling it in a loop, make one poll of their route per gap, not one
// each, on this instance and (through the due time) on the others.
const SWEEP_GAP_MS = 50;

/**
 * The sweeper: polls every due route, one transaction each, then sleeps until the next route is due (at
 * most a second, so a window opened on another instance is noticed). `wake()` sweeps at once (a window
 * opened here), or SWEEP_GAP_MS after the last sweep started if that is later. `afterCommit` runs for each
 * poll's new orders once the poll committed.
 */
export function startRoutePolling(deps: {
  knex: Knex;
  routeDeposits: RouteDeposits;
  now: () => Date;
  logger: Logger;
  onOrder: OrderCallback;
  afterCommit: (orderIds: string[]) => Promise<void>;
}) {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let again = false;
  // When the current (or last) sweep started, and when the sleeping timer fires (performance.now()).
  let sweptAt = -Infinity;
  let wakesAt = Infinity;
  const sleepFor = (ms: number) => {
    wakesAt = performance.now() + ms;
    timer = setTimeout(tick, ms);
  };

  const sweep = async () => {
    again = false;
    let due: string[] = [];
    try {
      due = await listDueRoutes(deps.knex, deps.now(), SWEEP_BATCH);
      for (const routeId of due) {
        if (stopped) return;
        try {
          const { orderIds } = await deps.routeDeposits.poll(routeId, { onOrder: deps.onOrder });
          if (orderIds.length > 0)
            await deps.afterCommit(orderIds).catch((err) => deps.logger.warn({ err }, 'route order step failed; its job carries it on'));
        } catch (err) {
          deps.logger.warn({ err, routeId }, 'route poll failed; retried at its next regular poll');
          await deps.routeDeposits.postpone(routeId).catch(() => undefined);
        }
      }
    } catch (err) {
      deps.logger.warn({ err }, 'route sweep failed; will retry');
    }
    if (stopped) return;
    let sleep = 0;
    if (due.length < SWEEP_BATCH) {
      const next = again ? undefined : await nextDuePoll(deps.knex).catch(() => undefined);
      const untilDue = next ? next.getTime() - deps.now().getTime() : MAX_SLEEP_MS;
      sleep = Math.min(MAX_SLEEP_MS, Math.max(MIN_SLEEP_MS, untilDue, untilGap()));
      // Woken during the sweep (or while the next due time was read): sweep again once the gap has passed.
      if (again) sleep = Math.min(sleep, untilGap());
    }
    if (!stopped) sleepFor(sleep);
  };
  const untilGap = () => Math.max(0, sweptAt + SWEEP_GAP_MS - performance.now());
  const tick = () => {
    timer = undefined;
    wakesAt = Infinity;
    sweptAt = performance.now();
    running = sweep();
  };
  tick();

  return {
    /** Sweeps as soon as the current sweep ends (a route was made due here), SWEEP_GAP_MS after the last start at the earliest. */
    wake(): void {
      if (stopped) return;
      if (timer) {
        // Sleeping: sweep once the gap has passed, unless the timer fires sooner anyway.
        const wait = untilGap();
        if (performance.now() + wait < wakesAt) {
          clearTimeout(timer);
          if (wait === 0) tick();
          else sleepFor(wait);
        }
      } else {
        // Sweeping: sweep again once this one ends and the gap has passed.
        again = true;
      }
    },
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** The route poller's operations. */
export type RouteDeposits = ReturnType<typeof createRouteDeposits>;
