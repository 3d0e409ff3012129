/**
 * The payout outbox's sender (docs/architecture.md#production, #money-that-ends-well; docs/payouts.md). For one committed payout, outside every lock
 * and transaction:
 * 1. prepare: the network's sender builds and signs it; the hash and the signed bytes are committed as the
 *    payout's first version (only if the payout is still unsigned: two senders never both sign it) before
 *    anything is broadcast. A payout that cannot be built is tried again with backoff while the reason can
 *    pass (the hot wallet lacks the funds now), and held for an operator after BUILD_ATTEMPTS, or at once when
 *    it cannot (a destination the node calls invalid, a transfer that reverts in its estimate);
 * 2. broadcast the committed bytes, and record the outcome: accepted (the chain has it); refused for a reason
 *    that can pass (fee too low, mempool full, funds not there yet: built again later, with backoff, held after
 *    REFUSAL_ATTEMPTS); refused for good (failed: proved never taken, and held for an operator); or ambiguous
 *    (review: an operator looks before anything more).
 * 3. while no block holds it: replaced at a higher fee `replaceAfterSeconds` after its last version's
 *    broadcast (the adapter prices it, never above the network's cap: at the cap it waits, `at_fee_cap`, and
 *    an alert names it), each new version stored before it is broadcast; broadcast again, the same bytes, when
 *    it stayed in no block `rebroadcastAfterMs`.
 * Every held payout's swap goes to review with the reason (domain/swap-decision.ts); the ops CLI offers the
 * remedies. A retry after any failure or crash finds the newest version committed and broadcasts it again:
 * the same transaction, never a second payment. Each recorded outcome wakes the swap.
 *
 * Once any version was accepted, a refusal proves nothing by itself (another version may be mined, or about
 * to be): the payout waits for the watcher, which matches blocks against every version's hash.
 *
 * Batches (Bitcoin family, `<NET>_PAYOUT_BATCH_SECONDS` > 0; docs/payouts.md "Batching"): a pending payout there
 * waits for the engine's batch timer (sendBatches), which builds one transaction for the payouts due within the
 * window (at most `<NET>_PAYOUT_BATCH_MAX`, one per address), stores it (payout_batches and its version, every
 * member moved from pending to signed in one transaction) and broadcasts it; its outcome is recorded on every
 * member, and it is bumped and broadcast again as one. A payout the node refuses alone is taken out (held or
 * backed off as alone), the others go out; a batch of one, and a payout marked `solo`, take the single path.
 *
 * EVM nonces (keepNonces): a payout held for an operator whose nonce stalls later payouts is cancelled by a
 * zero-value self-transfer at its nonce (stored as its version first), and a nonce no key holds below a held
 * one is filled the same way.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { AmbiguousBroadcastError, PayoutBuildError, type AdapterRegistry, type PayoutOrder, type SignedPayout } from '../adapters/chain.js';
import { findAsset, type Catalog } from '../domain/catalog.js';
import { transaction } from '../store/after-commit.js';
import { releaseEvmNonce } from '../store/evm-nonces.js';
import {
  clearBatchVersionAttempt,
  findBatch,
  findPayout,
  findPayoutByKey,
  insertBatchVersion,
  listBatchCandidates,
  listBatchMembers,
  listBatchVersions,
  lockUnminedBatch,
  markBatchVersionAttempted,
  markBatchVersionBroadcast,
  storeBatch,
  touchBatch,
  type PayoutBatch,
  type PayoutBatchVersion,
  insertPayoutVersion,
  listPayoutVersions,
  listUnminedPayoutIds,
  lockUnminedPayout,
  clearVersionAttempt,
  markVersionAttempted,
  markVersionBroadcast,
  movePayout,
  type PayoutRecord,
  type PayoutVersion,
} from '../store/payouts.js';
import { readSwapStatus } from '../store/swaps.js';

/** How long a broadcast payout may stay in no block before it is broadcast again. */
export const PAYOUT_REBROADCAST_MS = 10 * 60_000;
/** How the reason of a payout held for staying in no block starts (no fee bumping: Monero). */
const UNMINED_HOLD = 'in no block';
/** Builds that failed for a reason that can pass before the payout is held for an operator. */
export const BUILD_ATTEMPTS = 5;
/** Refusals that can pass before the payout is held for an operator. */
export const REFUSAL_ATTEMPTS = 8;
/** The first wait after a refusal or a failed build; it doubles with each, up to MAX_BACKOFF_MS. */
export const FIRST_BACKOFF_MS = 5_000;
export const MAX_BACKOFF_MS = 10 * 60_000;

/** A point at which a test kills the process (PAYOUT_CRASH_AT, sandbox only). */
export type CrashPoint = 'after-sign' | 'after-broadcast';

/** How a network's payouts are batched (`<NET>_PAYOUT_BATCH_SECONDS`, `<NET>_PAYOUT_BATCH_MAX`). */
export interface PayoutBatching {
  /** A payout waits at most this long after it came due for others to join its transaction. */
  windowMs: number;
  /** The most payouts (outputs besides the change) one transaction pays. */
  max: number;
}

/**
 * The payouts of `candidates` (oldest due first) that go out together now: up to `max`, one per address (the
 * node pays an address once per transaction: a second payout to it waits for the next batch), once the oldest
 * came due `windowMs` ago or `max` are there; null while the batch waits for more.
 */
export function pickBatch(candidates: PayoutRecord[], now: Date, batching: PayoutBatching): PayoutRecord[] | null {
  if (candidates.length === 0) return null;
  const members: PayoutRecord[] = [];
  const addresses = new Set<string>();
  for (const payout of candidates) {
    const address = payout.address === payout.address.toUpperCase() ? payout.address.toLowerCase() : payout.address;
    if (addresses.has(address)) continue;
    addresses.add(address);
    members.push(payout);
    if (members.length === batching.max) return members;
  }
  const oldest = Math.min(...candidates.map(dueAt));
  return now.getTime() - oldest >= batching.windowMs ? members : null;
}

/** When a payout came due: committed, or its retry time after a refusal that can pass. */
const dueAt = (payout: PayoutRecord) => Math.max(payout.createdAt.getTime(), payout.retryAt?.getTime() ?? 0);

/** What the sender needs. */
export interface PayoutSenderDeps {
  knex: Knex;
  catalog: Catalog;
  adapters: AdapterRegistry;
  now: () => Date;
  logger: Logger;
  /** Queues the step of swap `swapId` in `trx` (the outcome of its payout moves it). */
  wakeSwap(swapId: string, trx: Knex.Transaction): Promise<void>;
  /** Told of each broadcast the chain accepted (the network's watcher looks for it soon). */
  broadcasted?: (network: string) => void;
  /** Kills the process at this point (crash tests). */
  crashAt?: CrashPoint;
  /** How long a broadcast payout may stay in no block before it is broadcast again (default PAYOUT_REBROADCAST_MS). */
  rebroadcastAfterMs?: number;
  /** The networks whose payouts are batched, and how (none: every payout goes out alone; see also `setBatching`). */
  batching?: Record<string, PayoutBatching>;
}

/** The wait before the next try after `refusals` refusals or failed builds. */
export const backoffMs = (refusals: number) => Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, refusals));

const asSigned = (version: PayoutVersion | PayoutBatchVersion): SignedPayout => ({
  txHash: version.txHash,
  bytes: version.bytes,
  fee: version.fee,
  kind: version.kind === 'boost' ? 'boost' : 'payment',
});

/** The most batches one look sends on a network (each full; a look after it sends the rest). */
const BATCHES_PER_LOOK = 10;

/** Creates the sender. */
export function createPayoutSender(deps: PayoutSenderDeps) {
  const crash = (point: CrashPoint) => {
    if (deps.crashAt === point) {
      deps.logger.warn({ point }, 'PAYOUT_CRASH_AT: killing the process');
      process.kill(process.pid, 'SIGKILL');
    }
  };

  const orderOf = (payout: PayoutRecord): PayoutOrder => {
    const asset = findAsset(deps.catalog, payout.asset, payout.network);
    if (!asset) throw new Error(`payout ${payout.id} names ${payout.asset}/${payout.network}, which the catalogue no longer lists`);
    return { key: payout.idempotencyKey, swapId: payout.swapId, asset, address: payout.address, memo: payout.memo, amount: payout.amount };
  };

  // A recorded outcome wakes the payout's swap; a cold transfer has none.
  const wake = async (swapId: string | null, trx: Knex.Transaction) => {
    if (swapId !== null) await deps.wakeSwap(swapId, trx);
  };

  // Moves the payout and wakes its swap, together.
  async function record(
    payout: PayoutRecord,
    from: PayoutRecord['status'],
    to: PayoutRecord['status'],
    fields: Parameters<typeof movePayout>[4],
    options: Parameters<typeof movePayout>[6] = {},
  ) {
    return transaction(deps.knex, async (trx) => {
      const moved = await movePayout(trx, payout.id, from, to, fields, deps.now(), options);
      if (moved) await wake(payout.swapId, trx);
      return moved;
    });
  }

  /**
   * Holds `payout` for an operator: `failed` when it provably never went out (its hash then names nothing: it
   * is cleared from the payout, kept with its versions, and a payout paid again may sign the same bytes), else
   * `review`.
   */
  async function hold(payout: PayoutRecord, to: 'failed' | 'review', reason: string, options: { unmined?: boolean } = {}) {
    deps.logger.error({ payoutId: payout.id, txHash: payout.txHash, reason }, 'payout held for an operator');
    const cleared = to === 'failed' ? { txHash: null, signedBytes: null, batchId: null } : {};
    await record(payout, payout.status, to, { lastError: reason, heldReason: reason, retryAt: null, ...cleared }, options);
  }

  // A refusal or a failed build whose reason can pass: tried again after a backoff (from pending, so it is
  // built again at the fees and funds of then), until `limit`.
  async function backOff(payout: PayoutRecord, reason: string, limit: number): Promise<void> {
    if (payout.refusals + 1 >= limit) {
      await hold(payout, 'failed', `${reason} (${payout.refusals + 1} times; it never went out)`);
      return;
    }
    const retryAt = new Date(deps.now().getTime() + backoffMs(payout.refusals));
    // The refusal proved these bytes were not taken: signed again the same, they are a first try again.
    if (payout.txHash) await clearVersionAttempt(deps.knex, payout.id, payout.txHash);
    deps.logger.warn({ payoutId: payout.id, reason, retryAt }, 'payout refused for a reason that can pass; built again later');
    await movePayout(
      deps.knex,
      payout.id,
      payout.status,
      'pending',
      // Out of its batch, if it was in one: the next batch is built at the fees and funds of then.
      { txHash: null, signedBytes: null, batchId: null, lastError: reason, retryAt, refused: true },
      deps.now(),
    );
  }

  const rebroadcastAfterMs = deps.rebroadcastAfterMs ?? PAYOUT_REBROADCAST_MS;

  /** Broadcasts `version` of a payout some version of which the chain accepted; records it when accepted. */
  async function broadcastAgain(payout: PayoutRecord, order: PayoutOrder, version: SignedPayout, why: string): Promise<void> {
    let outcome;
    try {
      outcome = await deps.adapters.of(payout.network).sender.broadcast(order, version);
    } catch (err) {
      if (!(err instanceof AmbiguousBroadcastError)) throw err;
      deps.logger.warn({ err, payoutId: payout.id, txHash: version.txHash }, `${why}: outcome unknown; tried again later`);
      return;
    }
    if (outcome.kind === 'accepted') {
      await markVersionBroadcast(deps.knex, payout.id, version.txHash, deps.now());
      // The wait for a block starts again (and the attempt is counted); the swap has nothing to decide.
      await movePayout(deps.knex, payout.id, 'broadcast', 'broadcast', {}, deps.now());
      deps.logger.warn({ payoutId: payout.id, txHash: version.txHash }, why);
      deps.broadcasted?.(payout.network);
      return;
    }
    const versions = await listPayoutVersions(deps.knex, payout.id);
    if (
      versions.filter((v) => v.broadcastAt !== null).length > 1 ||
      versions.some((v) => v.broadcastAt !== null && v.txHash !== version.txHash)
    ) {
      // Another version was accepted: it may be the one mined (or about to be). The watcher tells.
      deps.logger.warn({ payoutId: payout.id, txHash: version.txHash, reason: outcome.reason }, `${why}: refused; another version is out`);
      await movePayout(deps.knex, payout.id, 'broadcast', 'broadcast', { lastError: outcome.reason }, deps.now());
      return;
    }
    deps.logger.error({ payoutId: payout.id, txHash: version.txHash, reason: outcome.reason }, `${why}: refused; held for review`);
    await record(
      payout,
      'broadcast',
      'review',
      { lastError: `broadcast again and refused: ${outcome.reason}`, heldReason: `broadcast again and refused: ${outcome.reason}` },
      { unmined: true },
    );
  }

  // A broadcast payout in no block: its newest version if never broadcast (a crash after storing it), else a
  // replacement once due, else the same bytes again once due.
  async function follow(payout: PayoutRecord, order: PayoutOrder): Promise<void> {
    if (payout.blockHeight !== null) return;
    const adapters = deps.adapters.of(payout.network);
    // The payment's versions, and the boosts that pay for it (CPFP), in the order they were made.
    const versions = (await listPayoutVersions(deps.knex, payout.id)).filter((v) => v.kind !== 'cancel');
    const newest = versions.at(-1);
    if (!newest) return;
    if (newest.broadcastAt === null) return broadcastAgain(payout, order, asSigned(newest), 'stored version broadcast');
    const now = deps.now().getTime();
    // No fee bumping (Monero): a swap's payout left out of blocks this long after its first broadcast is held,
    // never waited on silently; its swap, still sending, goes to review. Once: one an operator released from
    // that hold is broadcast again as before. A refund counts as made once the chain accepted it, and a cold
    // transfer pays no swap: they (and a payout whose swap ended, taken out of a block by a reorganisation)
    // are broadcast again instead, as everywhere, for nobody would be left to decide on them.
    const waited = now - versions.find((v) => v.broadcastAt !== null)!.broadcastAt!.getTime();
    const holdAfterMs = adapters.sender.replace ? undefined : adapters.holdUnminedAfterSeconds && adapters.holdUnminedAfterSeconds * 1000;
    if (
      holdAfterMs !== undefined &&
      waited >= holdAfterMs &&
      payout.purpose === 'payout' &&
      !payout.heldReason?.startsWith(UNMINED_HOLD) &&
      (await readSwapStatus(deps.knex, payout.swapId!)) === 'sending' &&
      // In a block the watcher has not recorded yet (it lags): not held; the watcher will see it.
      !(await adapters.sender.mined?.(payout.txHash!))
    ) {
      return hold(
        payout,
        'review',
        `${UNMINED_HOLD} ${Math.floor(waited / 1000)} s after its broadcast (${payout.network}_HOLD_UNMINED_SECONDS is ${adapters.holdUnminedAfterSeconds}), and ${payout.network} has no fee bumping: it may still be mined. Approve (review decide --exchange) to broadcast the same transaction again: it cannot pay twice, and a payout mined meanwhile finishes its swap then; pay-again only once it is proven to have paid nothing`,
        { unmined: true },
      );
    }
    const replaceAfterMs = adapters.replaceAfterSeconds === undefined ? undefined : adapters.replaceAfterSeconds * 1000;
    if (adapters.sender.replace && replaceAfterMs !== undefined && now - newest.broadcastAt.getTime() >= replaceAfterMs) {
      const replacement = await adapters.sender.replace(order, versions.map(asSigned));
      if (replacement === null) {
        if (!payout.atFeeCap) {
          deps.logger.error({ payoutId: payout.id, txHash: newest.txHash }, 'payout unmined at the fee cap; it waits (alert)');
          await movePayout(deps.knex, payout.id, 'broadcast', 'broadcast', { atFeeCap: true }, deps.now());
        }
      } else {
        // Stored before it is broadcast: a crash between the two leaves it to be broadcast on the next look.
        const stored = await transaction(deps.knex, async (trx) => {
          if (!(await lockUnminedPayout(trx, payout.id, 'broadcast'))) return false;
          await insertPayoutVersion(trx, payout.id, { ...replacement, kind: replacement.kind ?? 'payment' }, deps.now());
          return true;
        });
        if (!stored) return;
        const what = replacement.kind === 'boost' ? 'bumped by a child that pays for it (CPFP)' : 'replaced at a higher fee';
        deps.logger.warn(
          { payoutId: payout.id, after: newest.txHash, txHash: replacement.txHash, fee: replacement.fee },
          `payout unmined; ${what}`,
        );
        return broadcastAgain(payout, order, replacement, `payout ${what}`);
      }
    }
    if (now - Math.max(payout.updatedAt.getTime(), newest.broadcastAt.getTime()) >= rebroadcastAfterMs) {
      // The payment (its newest version), then the boosts that pay for it, in order: a child needs its parent.
      const payment = versions.filter((v) => v.kind === 'payment').at(-1)!;
      await broadcastAgain(payout, order, asSigned(payment), 'payout was in no block; broadcast again');
      for (const boost of versions.filter((v) => v.kind === 'boost' && v.version > payment.version)) {
        await broadcastAgain(payout, order, asSigned(boost), 'boost of a payout in no block; broadcast again');
      }
    }
  }

  // ---- Batches (Bitcoin family, `<NET>_PAYOUT_BATCH_SECONDS`): one transaction pays several payouts. ----

  let batching: Record<string, PayoutBatching> = { ...deps.batching };
  const batchesOn = (network: string) => batching[network] !== undefined && deps.adapters.of(network).sender.prepareBatch !== undefined;

  // One operation at a time per batch in this process (its payouts' jobs may run at once).
  const batchLocks = new Map<string, Promise<void>>();
  function exclusive(batchId: string, work: () => Promise<void>): Promise<void> {
    const before = batchLocks.get(batchId) ?? Promise.resolve();
    const run = before.catch(() => undefined).then(work);
    const settled = run.catch(() => undefined);
    batchLocks.set(batchId, settled);
    void settled.then(() => {
      if (batchLocks.get(batchId) === settled) batchLocks.delete(batchId);
    });
    return run;
  }

  // Moves every one of `payouts` from `from` to `to` and wakes their swaps, in one transaction.
  async function recordAll(
    payouts: PayoutRecord[],
    from: PayoutRecord['status'],
    to: PayoutRecord['status'],
    fields: Parameters<typeof movePayout>[4],
  ) {
    await transaction(deps.knex, async (trx) => {
      for (const payout of payouts) {
        if (await movePayout(trx, payout.id, from, to, fields, deps.now())) await wake(payout.swapId, trx);
      }
    });
  }

  /**
   * Sends the batches due on `network`: the payouts pending there go out together once the oldest came due the
   * network's window ago, or as soon as a full batch waits. A look of the engine's batch timer.
   */
  async function sendBatches(network: string): Promise<void> {
    const settings = batching[network];
    if (!settings || !batchesOn(network)) return;
    for (let look = 0; look < BATCHES_PER_LOOK; look++) {
      // More than a batch: payouts to an address already in it are passed over, for the next.
      const candidates = await listBatchCandidates(deps.knex, network, deps.now(), settings.max * 2);
      const members = pickBatch(candidates, deps.now(), settings);
      if (!members) return;
      await sendBatch(network, members);
      if (members.length < settings.max && candidates.length === members.length) return;
    }
  }

  // Builds, stores and broadcasts one batch of `members` (pending, distinct addresses). One alone goes the
  // single way (a batch of one is a payout of its own).
  async function sendBatch(network: string, members: PayoutRecord[]): Promise<void> {
    if (members.length === 1) return sendOne(members[0]!.id, true);
    const { sender } = deps.adapters.of(network);
    const byKey = new Map(members.map((m) => [m.idempotencyKey, m]));
    let prepared;
    try {
      prepared = await sender.prepareBatch!(members.map(orderOf));
    } catch (err) {
      if (!(err instanceof PayoutBuildError)) throw err;
      if (err.passing) {
        // The whole cannot be paid now (the hot wallet's funds): every payout backs off, as one alone would.
        for (const member of members) await backOff(member, err.message, BUILD_ATTEMPTS);
        return;
      }
      // Refused for good, and no one destination to blame: each goes alone, where the refusal finds its own.
      deps.logger.warn({ network, payouts: members.map((m) => m.id), reason: err.message }, 'batch cannot be built; its payouts go alone');
      for (const member of members)
        await movePayout(deps.knex, member.id, 'pending', 'pending', { solo: true, lastError: err.message }, deps.now());
      for (const member of members) await sendOne(member.id, true);
      return;
    }
    // A payout whose destination or amount the node refuses is taken out, held or backed off as it would be
    // alone; the rest go out without it.
    for (const { key, error } of prepared.excluded) {
      const member = byKey.get(key)!;
      deps.logger.warn({ payoutId: member.id, reason: error.message }, 'payout taken out of its batch');
      if (error.passing) await backOff(member, error.message, BUILD_ATTEMPTS);
      else await hold(member, 'failed', error.message);
    }
    const signed = prepared.signed;
    if (!signed) return;
    const paid = members.filter((m) => signed.outputs[m.idempotencyKey] !== undefined);
    const batchId = randomUUID();
    const outputs = Object.fromEntries(paid.map((m) => [m.id, signed.outputs[m.idempotencyKey]!]));
    // Stored before anything is broadcast, every payout moved to signed with it, all in one transaction.
    const stored = await transaction(deps.knex, async (trx) => {
      const done = await storeBatch(
        trx,
        { id: batchId, network, members: paid.map((m) => m.id), version: { ...signed, outputs } },
        deps.now(),
      );
      if (done) for (const member of paid) await wake(member.swapId, trx);
      return done;
    });
    if (!stored) {
      // A payout of it moved meanwhile (another sender batched it, or its swap gave it up): never broadcast.
      deps.logger.warn({ network, txHash: signed.txHash }, 'batch not stored: a payout of it moved; built again on the next look');
      await sender.discard?.(signed).catch(() => undefined);
      return;
    }
    deps.logger.info({ network, batchId, txHash: signed.txHash, payouts: paid.length }, 'payout batch signed and stored');
    crash('after-sign');
    await exclusive(batchId, () => broadcastBatch(batchId));
  }

  // Broadcasts the stored payment of batch `batchId` for its payouts still signed, and records the outcome on
  // each of them (they share its fate: one transaction).
  async function broadcastBatch(batchId: string): Promise<void> {
    const members = await listBatchMembers(deps.knex, batchId);
    const signedMembers = members.filter((m) => m.status === 'signed');
    if (signedMembers.length === 0) return;
    const versions = await listBatchVersions(deps.knex, batchId);
    const payment = versions.filter((v) => v.kind === 'payment').at(-1);
    if (!payment) return;
    const network = signedMembers[0]!.network;
    const { sender } = deps.adapters.of(network);
    const triedBefore = await markBatchVersionAttempted(deps.knex, batchId, payment.txHash, deps.now());
    let outcome;
    try {
      outcome = await sender.broadcast(orderOf(signedMembers[0]!), asSigned(payment));
    } catch (err) {
      if (!(err instanceof AmbiguousBroadcastError)) throw err;
      for (const member of signedMembers) await hold(member, 'review', `the broadcast's outcome is unknown: ${err.message}`);
      return;
    }
    crash('after-broadcast');
    if (outcome.kind === 'accepted') {
      await markBatchVersionBroadcast(deps.knex, batchId, payment.txHash, deps.now());
      await recordAll(signedMembers, 'signed', 'broadcast', { retryAt: null });
      deps.broadcasted?.(network);
      return;
    }
    const reason = outcome.reason;
    if (signedMembers.some((m) => m.acceptedAt !== null) || versions.some((v) => v.broadcastAt !== null)) {
      for (const member of signedMembers) await hold(member, 'review', `accepted before, refused now: ${reason}`);
      return;
    }
    if (triedBefore && !outcome.conflict) {
      for (const member of signedMembers)
        await hold(member, 'review', `refused after an earlier broadcast that may have gone out: ${reason}`);
      return;
    }
    // Proved never taken: the batch is done with, its payouts leave it.
    await clearBatchVersionAttempt(deps.knex, batchId, payment.txHash);
    await touchBatch(deps.knex, batchId, { status: 'dissolved' }, deps.now());
    if (outcome.passing) {
      // Retried for the batch, as a payout alone would be: back to pending, batched again after the backoff.
      for (const member of signedMembers) await backOff(member, reason, REFUSAL_ATTEMPTS);
      return;
    }
    // Refused for good (a non-standard output?): each goes alone, where the refusal finds its own payout.
    deps.logger.warn({ batchId, txHash: payment.txHash, reason }, 'batch refused for good; its payouts go alone');
    for (const member of signedMembers) {
      await movePayout(
        deps.knex,
        member.id,
        'signed',
        'pending',
        { txHash: null, signedBytes: null, batchId: null, solo: true, lastError: reason },
        deps.now(),
      );
    }
    for (const member of signedMembers) await sendOne(member.id, true);
  }

  /** Broadcasts `version` of batch `batch`, some version of which the chain accepted, for its payouts `live`. */
  async function broadcastBatchAgain(batch: PayoutBatch, live: PayoutRecord[], version: SignedPayout, why: string): Promise<void> {
    let outcome;
    try {
      outcome = await deps.adapters.of(batch.network).sender.broadcast(orderOf(live[0]!), version);
    } catch (err) {
      if (!(err instanceof AmbiguousBroadcastError)) throw err;
      deps.logger.warn({ err, batchId: batch.id, txHash: version.txHash }, `${why}: outcome unknown; tried again later`);
      return;
    }
    if (outcome.kind === 'accepted') {
      await markBatchVersionBroadcast(deps.knex, batch.id, version.txHash, deps.now());
      for (const member of live) await movePayout(deps.knex, member.id, 'broadcast', 'broadcast', {}, deps.now());
      deps.logger.warn({ batchId: batch.id, txHash: version.txHash, payouts: live.length }, why);
      deps.broadcasted?.(batch.network);
      return;
    }
    const versions = await listBatchVersions(deps.knex, batch.id);
    if (
      versions.filter((v) => v.broadcastAt !== null).length > 1 ||
      versions.some((v) => v.broadcastAt !== null && v.txHash !== version.txHash)
    ) {
      deps.logger.warn({ batchId: batch.id, txHash: version.txHash, reason: outcome.reason }, `${why}: refused; another version is out`);
      await touchBatch(deps.knex, batch.id, {}, deps.now());
      for (const member of live)
        await movePayout(deps.knex, member.id, 'broadcast', 'broadcast', { lastError: outcome.reason }, deps.now());
      return;
    }
    deps.logger.error({ batchId: batch.id, txHash: version.txHash, reason: outcome.reason }, `${why}: refused; held for review`);
    for (const member of live) {
      await hold(member, 'review', `broadcast again and refused: ${outcome.reason}`, { unmined: true });
    }
  }

  // A broadcast batch in no block, as `follow` for one payout: its newest version if never broadcast, else a
  // bump once due (CPFP on Litecoin through the change, a BIP125 replacement paying the same outputs on Bitcoin
  // Core), else the same bytes again once due.
  async function followBatch(batchId: string): Promise<void> {
    const batch = await findBatch(deps.knex, batchId);
    if (!batch) return;
    const members = await listBatchMembers(deps.knex, batchId);
    if (members.some((m) => m.blockHeight !== null)) return;
    const live = members.filter((m) => m.status === 'broadcast');
    if (live.length === 0) return;
    const adapters = deps.adapters.of(batch.network);
    const versions = await listBatchVersions(deps.knex, batchId);
    const newest = versions.at(-1);
    if (!newest) return;
    if (newest.broadcastAt === null) return broadcastBatchAgain(batch, live, asSigned(newest), 'stored batch version broadcast');
    const payment = versions.filter((v) => v.kind === 'payment').at(-1)!;
    const paid = members.filter((m) => payment.outputs[m.id] !== undefined);
    const now = deps.now().getTime();
    const replaceAfterMs = adapters.replaceAfterSeconds === undefined ? undefined : adapters.replaceAfterSeconds * 1000;
    if (adapters.sender.replaceBatch && replaceAfterMs !== undefined && now - newest.broadcastAt.getTime() >= replaceAfterMs) {
      const replacement = await adapters.sender.replaceBatch(paid.map(orderOf), versions.map(asSigned));
      if (replacement === null) {
        if (!batch.atFeeCap) {
          deps.logger.error({ batchId, txHash: newest.txHash }, 'payout batch unmined at the fee cap; it waits (alert)');
          await touchBatch(deps.knex, batchId, { atFeeCap: true }, deps.now());
          for (const member of live) await movePayout(deps.knex, member.id, 'broadcast', 'broadcast', { atFeeCap: true }, deps.now());
        }
      } else {
        const kind = replacement.kind ?? 'payment';
        const outputs = kind === 'payment' ? Object.fromEntries(paid.map((m) => [m.id, replacement.outputs[m.idempotencyKey]!])) : {};
        // Stored before it is broadcast, only on top of the version it was made from.
        const stored = await transaction(deps.knex, async (trx) => {
          if (!(await lockUnminedBatch(trx, batchId, newest.version))) return false;
          await insertBatchVersion(trx, batchId, { ...replacement, kind, outputs }, deps.now());
          return true;
        });
        if (!stored) {
          await adapters.sender.discard?.(replacement).catch(() => undefined);
          return;
        }
        const what = kind === 'boost' ? 'bumped by a child that pays for it (CPFP)' : 'replaced at a higher fee, the same outputs';
        deps.logger.warn(
          { batchId, after: newest.txHash, txHash: replacement.txHash, fee: replacement.fee, payouts: paid.length },
          `payout batch unmined; ${what}`,
        );
        return broadcastBatchAgain(batch, live, replacement, `payout batch ${what}`);
      }
    }
    if (now - Math.max(batch.updatedAt.getTime(), newest.broadcastAt.getTime()) >= rebroadcastAfterMs) {
      await broadcastBatchAgain(batch, live, asSigned(payment), 'payout batch was in no block; broadcast again');
      for (const boost of versions.filter((v) => v.kind === 'boost' && v.version > payment.version)) {
        await broadcastBatchAgain(batch, live, asSigned(boost), 'boost of a payout batch in no block; broadcast again');
      }
    }
  }

  const send = (id: string) => sendOne(id, false);

  // `alone`: a pending payout on a batching network is built on its own (a batch of one, or one sent alone).
  async function sendOne(id: string, alone: boolean): Promise<void> {
    let payout = await findPayout(deps.knex, id);
    if (!payout) return;
    if (payout.retryAt !== null && payout.retryAt > deps.now() && (payout.status === 'pending' || payout.status === 'signed')) return;
    if (payout.batchId !== null) {
      const { batchId, status } = payout;
      if (status === 'signed') return exclusive(batchId, () => broadcastBatch(batchId));
      if (status === 'broadcast') return exclusive(batchId, () => followBatch(batchId));
      return;
    }
    // On a batching network a pending payout waits for the batch timer (sendBatches), unless it goes alone.
    if (payout.status === 'pending' && !alone && !payout.solo && batchesOn(payout.network)) return;
    const order = orderOf(payout);
    const { sender } = deps.adapters.of(payout.network);
    if (payout.status === 'pending') {
      let signed: SignedPayout;
      try {
        signed = await sender.prepare(order);
      } catch (err) {
        if (!(err instanceof PayoutBuildError)) throw err;
        if (!err.passing) return hold(payout, 'failed', err.message);
        return backOff(payout, err.message, BUILD_ATTEMPTS);
      }
      await transaction(deps.knex, async (trx) => {
        if (!(await movePayout(trx, payout!.id, 'pending', 'signed', { txHash: signed.txHash, signedBytes: signed.bytes }, deps.now())))
          return;
        await insertPayoutVersion(trx, payout!.id, { kind: 'payment', ...signed }, deps.now());
        await wake(payout!.swapId, trx);
      });
      crash('after-sign');
      // Signed here, or by another sender first: either way the committed bytes are the ones to send.
      payout = await findPayout(deps.knex, id);
      if (!payout) return;
    }
    if (payout.status === 'broadcast') return follow(payout, order);
    if (payout.status !== 'signed') return;
    const signed = { txHash: payout.txHash!, bytes: payout.signedBytes! };
    // Marked before the call: from here on the bytes may have left the process, and a refusal on a later try
    // (after a crash between the node taking them and our record of it) proves nothing by itself.
    const triedBefore = await markVersionAttempted(deps.knex, payout.id, signed.txHash, deps.now());
    let outcome;
    try {
      outcome = await sender.broadcast(order, signed);
    } catch (err) {
      if (!(err instanceof AmbiguousBroadcastError)) throw err;
      return hold(payout, 'review', `the broadcast's outcome is unknown: ${err.message}`);
    }
    crash('after-broadcast');
    if (outcome.kind === 'accepted') {
      await markVersionBroadcast(deps.knex, payout.id, signed.txHash, deps.now());
      await record(payout, 'signed', 'broadcast', { retryAt: null });
      deps.broadcasted?.(payout.network);
    } else if (payout.acceptedAt !== null) {
      // Accepted once (then held for review and approved): it may be on the chain, so a refusal now proves
      // nothing. Failed would let another payment be committed for it; it waits for an operator again.
      await hold(payout, 'review', `accepted before, refused now: ${outcome.reason}`);
    } else if (triedBefore && !outcome.conflict) {
      // Tried before (a crash between the node taking it and our record?): it may be out there, in a mempool
      // or about to be mined, unless the refusal proves a conflicting transaction took its place.
      await hold(payout, 'review', `refused after an earlier broadcast that may have gone out: ${outcome.reason}`);
    } else if (outcome.passing) {
      await backOff(payout, outcome.reason, REFUSAL_ATTEMPTS);
    } else {
      await hold(payout, 'failed', outcome.reason);
    }
  }

  /**
   * EVM networks: cancels the nonce of each payout held for an operator that stalls a later one (a zero-value
   * self-transfer at its nonce, stored as its version before it is broadcast), and fills each nonce no key
   * holds below a held one. Returns what it did, for logs and tests.
   */
  async function keepNonces(network: string): Promise<{ cancelled: string[]; filled: number[] }> {
    const done = { cancelled: [] as string[], filled: [] as number[] };
    const { sender } = deps.adapters.of(network);
    if (!sender.nonces || !sender.cancel || !sender.fillNonce) return done;
    const { mined, held } = await sender.nonces();
    if (held.length === 0) return done;
    const highest = held.at(-1)!.nonce;
    const holder = new Map(held.map((h) => [h.nonce, h.key]));
    for (let nonce = mined; nonce < highest; nonce++) {
      const key = holder.get(nonce);
      if (key === undefined) {
        deps.logger.warn({ network, nonce }, 'a nonce no payout holds stalls later ones; filled with a zero-value self-transfer');
        await sender.fillNonce(nonce);
        done.filled.push(nonce);
        continue;
      }
      const payout = await findPayoutByKey(deps.knex, key);
      if (!payout || payout.network !== network) continue;
      if (payout.status === 'failed') {
        // Proved never taken, yet still holding its nonce (a build that failed after the nonce was given):
        // the nonce is freed and filled.
        await releaseEvmNonce(deps.knex, network, key);
        await sender.fillNonce(nonce);
        done.filled.push(nonce);
        continue;
      }
      if (payout.status !== 'review') continue;
      const versions = await listPayoutVersions(deps.knex, payout.id);
      if (versions.some((v) => v.kind === 'cancel')) {
        const cancel = versions.filter((v) => v.kind === 'cancel').at(-1)!;
        if (cancel.broadcastAt === null) await broadcastCancel(payout, cancel);
        continue;
      }
      const payments = versions.filter((v) => v.kind === 'payment');
      if (payments.length === 0) continue;
      const cancel = await sender.cancel(orderOf(payout), payments.map(asSigned));
      const stored = await transaction(deps.knex, async (trx) => {
        if (!(await lockUnminedPayout(trx, payout.id, 'review'))) return undefined;
        const version = await insertPayoutVersion(trx, payout.id, { kind: 'cancel', ...cancel }, deps.now());
        return {
          version,
          kind: 'cancel' as const,
          txHash: cancel.txHash,
          bytes: cancel.bytes,
          fee: cancel.fee ?? '0',
          createdAt: deps.now(),
          broadcastAt: null,
        };
      });
      if (!stored) continue;
      deps.logger.warn(
        { network, nonce, payoutId: payout.id, txHash: cancel.txHash },
        'held payout stalls later ones; its nonce is cancelled',
      );
      await broadcastCancel(payout, stored);
      done.cancelled.push(payout.id);
    }
    return done;
  }

  async function broadcastCancel(payout: PayoutRecord, cancel: PayoutVersion): Promise<void> {
    try {
      const outcome = await deps.adapters.of(payout.network).sender.broadcast(orderOf(payout), asSigned(cancel));
      if (outcome.kind === 'accepted') {
        await markVersionBroadcast(deps.knex, payout.id, cancel.txHash, deps.now());
        deps.broadcasted?.(payout.network);
      } else {
        deps.logger.warn({ payoutId: payout.id, txHash: cancel.txHash, reason: outcome.reason }, 'nonce cancellation refused');
      }
    } catch (err) {
      if (!(err instanceof AmbiguousBroadcastError)) throw err;
      deps.logger.warn({ err, payoutId: payout.id }, 'nonce cancellation outcome unknown; tried again later');
    }
  }

  /** How often the engine should look for payouts due (a replacement, a rebroadcast, a retry). */
  const sweepMs = (() => {
    const windows = deps.adapters.networks
      .flatMap((n) => [deps.adapters.of(n).replaceAfterSeconds, deps.adapters.of(n).holdUnminedAfterSeconds])
      .filter((s) => s !== undefined);
    const shortest = Math.min(rebroadcastAfterMs, ...windows.map((s) => (s * 1000) / 2));
    return Math.max(500, Math.min(60_000, shortest));
  })();

  /** Payouts broadcast and in no block whose replacement or rebroadcast may be due now, on every network. */
  async function dueUnmined(): Promise<string[]> {
    const now = deps.now().getTime();
    const lists = await Promise.all(
      deps.adapters.networks.map((network) => {
        // The first of a replacement, a hold (no fee bumping) and a rebroadcast that may be due.
        const { replaceAfterSeconds, holdUnminedAfterSeconds } = deps.adapters.of(network);
        const window = Math.min(
          rebroadcastAfterMs,
          ...[replaceAfterSeconds, holdUnminedAfterSeconds].map((s) => (s === undefined ? Infinity : s * 1000)),
        );
        return listUnminedPayoutIds(deps.knex, new Date(now - window), network);
      }),
    );
    return lists.flat();
  }

  return {
    dueUnmined,
    sendBatches,
    /** Sets which networks batch their payouts, and how (the engine, from `<NET>_PAYOUT_BATCH_*`). */
    setBatching(settings: Record<string, PayoutBatching>) {
      batching = { ...settings };
    },
    /** The networks whose payouts are batched, with their settings. */
    batching: () => Object.entries(batching).filter(([network]) => batchesOn(network)),
    /**
     * Moves payout `id` as far as it goes: signed and committed, then broadcast; replaced or broadcast again
     * while no block holds it. Safe to run twice at once.
     */
    send,
    keepNonces,
    /** How often the engine sweeps for payouts due. */
    sweepMs,
    /** The EVM networks (with nonces to keep). */
    nonceNetworks: () => deps.adapters.networks.filter((n) => deps.adapters.of(n).sender.nonces !== undefined),
  };
}

/** The sender's operations. */
export type PayoutSender = ReturnType<typeof createPayoutSender>;
