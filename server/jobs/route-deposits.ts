/**
 * Watches permanent routes' reusable addresses (DESIGN 6.7). Each route is polled on its own schedule:
 * every ROUTE_POLL_SECONDS, every ROUTE_EXPECT_POLL_SECONDS while an expect-deposit window is open, and at
 * the next block while one of its deposits is confirming. A poll, in one transaction on the locked route:
 * 1. records transaction outputs paid to the route's addresses that it has not seen (`confirming`);
 * 2. counts the confirmations of those still confirming;
 * 3. decides each same-asset bucket of confirmed deposits without an order (domain/accumulation.ts): wait
 *    as `accumulating`, convert in one order (which runs the swap lifecycle at the route's fee), or convert
 *    alone into review above the automatic maximum;
 * 4. queues a `permanent_deposit.updated` message for every deposit it changed, and sets the next poll.
 * The route lock makes polls of one route run one at a time, so two workers never convert a deposit twice.
 */
import type { Knex } from 'knex';
import type { ChainAdapter } from '../adapters/chain.js';
import type { RatesAdapter } from '../adapters/rates.js';
import { decideBucket, usd, type BucketDecision } from '../domain/accumulation.js';
import { assetKey, findAsset, type Catalog, type CatalogAsset } from '../domain/catalog.js';
import { Money, type Amount } from '../domain/money.js';
import { marketRate, priceRouteOrder } from '../domain/pricing.js';
import { toBaseUnits, type DepositRecord } from '../domain/route-deposit-view.js';
import { TERMS_VERSION } from '../domain/swap-view.js';
import { insertDepositMessages, insertNewDeposits, listOpenDeposits, updateDeposit } from '../store/route-deposits.js';
import { listRouteAddresses, lockRoute, updateRoutePolling, type RouteRecord } from '../store/routes.js';
import { createRouteOrder, transitionSwap } from '../store/swap-transitions.js';

/** What polling needs. */
export interface RouteDepositsDeps {
  knex: Knex;
  catalog: Catalog;
  rates: RatesAdapter;
  chain: ChainAdapter;
  now: () => Date;
  /** ROUTE_POLL_SECONDS and ROUTE_EXPECT_POLL_SECONDS. */
  pollSeconds: number;
  expectPollSeconds: number;
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

  async function detect(trx: Knex.Transaction, route: RouteRecord, at: Date): Promise<DepositRecord[]> {
    const addresses = (await listRouteAddresses(trx, [route.id])).filter((a) => a.address !== '');
    const accepted = new Set(addresses.map((a) => `${a.address} ${a.assetKey}`));
    const seen = await deps.chain.listAddressDeposits(trx, [...new Set(addresses.map((a) => a.address))], route.createdAt, at);
    const payable = seen.filter((tx) => accepted.has(`${tx.address} ${assetKey({ symbol: tx.asset, network: tx.network })}`));
    return insertNewDeposits(
      trx,
      payable.map((tx) => {
        const asset = assetOf(tx.asset, tx.network);
        const required = deps.catalog.networks[asset.network].confirmations;
        const confirmations = Math.min(tx.confirmations, required);
        return {
          routeId: route.id,
          asset: tx.asset,
          network: tx.network,
          address: tx.address,
          txHash: tx.txHash,
          outputIndex: tx.outputIndex,
          fromAddress: tx.fromAddress,
          amount: tx.amount,
          amountBaseUnits: toBaseUnits(new Money(tx.amount).toFixed(), asset.precision),
          broadcastAt: tx.seenAt,
          confirmationCount: confirmations,
          requiredConfirmations: required,
          status: 'confirming' as const,
          firstSeenAt: at,
          lastSeenAt: at,
          confirmedAt: confirmations >= required ? at : null,
          createdAt: at,
          updatedAt: at,
        };
      }),
    );
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

  async function pollLocked(trx: Knex.Transaction, route: RouteRecord, at: Date): Promise<PollResult> {
    const changed = new Map<string, DepositRecord>();
    for (const deposit of await detect(trx, route, at)) changed.set(deposit.id, deposit);

    const open: DepositRecord[] = [];
    for (let deposit of await listOpenDeposits(trx, route.id)) {
      if (deposit.status === 'confirming') {
        const confirmations = Math.min(deps.chain.confirmationsSince(deposit.broadcastAt, at), deposit.requiredConfirmations);
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
    for (const deposit of open) {
      if (deposit.confirmationCount < deposit.requiredConfirmations) continue;
      const key = `${deposit.asset}/${deposit.network}`;
      buckets.set(key, [...(buckets.get(key) ?? []), deposit]);
    }
    const orderIds: string[] = [];
    for (const deposits of buckets.values()) {
      const price = await deps.rates.priceUsd(deposits[0].asset, deposits[0].network, at);
      const limits = { minSwapUsd: route.minSwapUsd, maxAutoSwapUsd: route.maxAutoSwapUsd };
      for (const decision of decideBucket(deposits, price, limits)) {
        const members = deposits.filter((d) => decision.depositIds.includes(d.id));
        if (decision.kind === 'convert') {
          orderIds.push(await convert(trx, route, members, decision, price, at));
          // The order announces its deposits itself.
          for (const d of members) changed.delete(d.id);
          continue;
        }
        // A waiting bucket is valued again only when its deposits change, so its figures and valued_at
        // describe the moment it last grew; the threshold is still checked at the current price every poll.
        const grew = members.some((d) => d.status !== 'accumulating');
        if (!grew) continue;
        for (const member of members) {
          changed.set(
            member.id,
            await updateDeposit(trx, member.id, {
              status: 'accumulating',
              accumulatedUsd: decision.accumulatedUsd,
              thresholdUsd: usd(new Money(route.minSwapUsd)),
              valuedAt: at,
              updatedAt: at,
            }),
          );
        }
      }
    }
    await insertDepositMessages(trx, route.partnerId, route.id, [...changed.values()], null);

    const fast = route.expectDepositUntil !== null && at < route.expectDepositUntil;
    let next = at.getTime() + (fast ? deps.expectPollSeconds : deps.pollSeconds) * 1000;
    for (const deposit of open) {
      if (deposit.confirmationCount >= deposit.requiredConfirmations || deposit.orderId !== null) continue;
      next = Math.min(next, deps.chain.confirmationTime(deposit.broadcastAt, deposit.confirmationCount + 1).getTime());
    }
    const nextPollAt = new Date(Math.max(next, at.getTime() + MIN_POLL_GAP_MS));
    await updateRoutePolling(trx, route.id, { nextPollAt });
    return { nextPollAt, orderIds };
  }

  return {
    /**
     * Polls route `routeId`. A worker passes the moment its job was scheduled for, and the poll does nothing
     * unless that is still the route's next poll (a job left over from an earlier schedule is stale).
     * Without `scheduledFor` it polls unconditionally.
     */
    async poll(routeId: string, scheduledFor?: Date): Promise<PollResult> {
      return deps.knex.transaction(async (trx) => {
        const route = await lockRoute(trx, routeId);
        if (!route || route.status !== 'active') return { nextPollAt: undefined, orderIds: [] };
        if (scheduledFor && route.nextPollAt?.getTime() !== scheduledFor.getTime()) return { nextPollAt: undefined, orderIds: [] };
        return pollLocked(trx, route, deps.now());
      });
    },
  };
}

/** The route poller's operations. */
export type RouteDeposits = ReturnType<typeof createRouteDeposits>;
