/**
 * The payout sender: a PSBT funded by the watch-only wallet (the node picks and locks the inputs, change goes
 * to `1/0`), signed by the signer wallet (`walletprocesspsbt`), finalised; the txid is known before anything
 * is broadcast. Broadcast is `sendrawtransaction` of those bytes, as often as asked.
 *
 * How a broadcast's answer is read (Bitcoin Core 0.21+, src/node/transaction.cpp and rpc/protocol.h):
 * - success, or -27 "already in block chain" (an output of it is in the UTXO set), or a mempool that already
 *   has it: accepted;
 * - -25 "missing inputs" (bad-txns-inputs-missingorspent): either another transaction spent an input (it can
 *   never be mined) or it is mined itself and all its outputs are spent since; the wallet tells which
 *   (gettransaction: confirmations > 0 is mined);
 * - -26 (the mempool refused it: a conflict, too low a fee...), -22 (does not decode), -25 "fee exceeds
 *   maximum": rejected, it is not on this node; as it is only ever broadcast through this node, nowhere.
 *   A refusal for the fee (below the mempool's minimum, "min relay fee not met", "mempool full", an
 *   "insufficient fee" of a replacement) can pass: the payout is built again later at the fee of then;
 *   any other (dust, a non-standard output, a bad signature) cannot;
 * - no answer (a timeout, a reset connection) or an error not listed: ambiguous. A refused connection or a
 *   node still starting proves nothing went out: a plain error, which the job engine retries.
 *
 * Payouts are sent replaceable (BIP125) and funded only from outputs with at least `minConfirmations`
 * (a deposit with one confirmation that is double-spent away must not take other payouts with it). One that
 * waits is bumped (params.ts `bump`): on Bitcoin Core replaced with `psbtbumpfee` on the watch-only wallet
 * (the same inputs, the same payment output, the fee taken from the change, then signed by the signer wallet
 * like the first version); on Litecoin Core, whose mempool accepts no replacement, a child spends the payout's
 * change (then each further one the last child's output) back to the hot wallet, paying enough that the
 * package with its ancestors reaches the new rate (CPFP: blocks take transactions by their ancestors' rate).
 *
 * Batches (`prepareBatch`): one PSBT pays several orders (the change last), and each order's output is read
 * back from the signed transaction. When the node refuses a destination or an amount of the batch, each order
 * is funded alone (nothing locked, nothing signed) to find whose; that one is excluded and the rest built. A
 * batch is bumped as one (`replaceBatch`): a child through its change, or `psbtbumpfee` checked to pay every
 * order its amount.
 *
 * Every amount and fee rate the node answers is read by the strict rule (adapters/boundary.ts parseNodeAmount):
 * NaN, an exponent or a negative balance is a MalformedAnswerError, never a number computed with.
 */
import { Decimal } from 'decimal.js';
import { parseNodeAmount, type AmountRule } from '../boundary.js';
import {
  AmbiguousBroadcastError,
  PayoutBuildError,
  type BroadcastOutcome,
  type PayoutOrder,
  type PayoutSender,
  type SignedBatch,
} from '../chain.js';
import type { WatchImporter } from './addresses.js';
import type { AccountKey } from './keys.js';
import { RpcCode, RpcError, RpcTransportError, type RpcClient } from './rpc.js';

/** The virtual size of a typical payout (two P2WPKH inputs, two P2WPKH outputs), for fee estimates. */
export const TYPICAL_PAYOUT_VBYTES = 209;
/** Inputs a prepared payout locked are released this long after, if it was never broadcast. */
export const UNBROADCAST_LOCK_MS = 30 * 60_000;

/** Options of createPayoutSender. */
export interface BitcoinSenderOptions {
  /** The watch-only wallet's RPC (funds the PSBT, broadcasts). */
  rpc: RpcClient;
  /** The signer wallet's RPC (holds the private keys). */
  signer: RpcClient;
  account: AccountKey;
  importer: WatchImporter;
  /** Decimal places of the coin. */
  decimals: number;
  /** The fee rate (coin per 1000 virtual bytes) while the node has no estimate. */
  fallbackFeeRate: string;
  /** The confirmation target for estimatesmartfee. */
  feeTargetBlocks: number;
  /** The clock (for releasing the inputs of payouts never broadcast). */
  now: () => Date;
  /** The most a version may pay, in coin per kvB (`<NET>_MAX_FEE_RATE`). */
  maxFeeRate: string;
  /** Inputs need at least this many confirmations (the network's deposit confirmations). */
  minConfirmations: number;
  /** How a waiting payout is bumped (params.ts): BIP125 replacement, or a child that pays for it (CPFP). */
  bump: 'bip125' | 'cpfp';
}

/** A replacement's fee rate is at least this much above the last version's (BIP125 asks for more fee, not rate). */
const BUMP_FACTOR = '1.25';
/** Bitcoin Core's default -incrementalrelayfee, coin per kvB (1 sat/vB): the least a replacement must add. */
const INCREMENTAL_RELAY_FEE = '0.00001';
/** An input's, an output's, and the fixed part's, virtual size for coin selection (P2WPKH). */
const INPUT_VBYTES = 68;
const OUTPUT_VBYTES = 31;
const BASE_VBYTES = 11 + 2 * OUTPUT_VBYTES;
/** A boost's virtual size: one P2WPKH input, one P2WPKH output. */
const BOOST_VBYTES = 11 + INPUT_VBYTES + 31;
/** The least fee rate a transaction relays at (coin per kvB): a boost pays at least this for itself. */
const MIN_RELAY_FEE_RATE = '0.00001';

interface Outpoint {
  txid: string;
  vout: number;
}

const MISSING_INPUTS = /missing inputs|missingorspent/i;
const ALREADY_KNOWN = /txn-already-in-mempool|txn-already-known|already in block chain|outputs already in utxo set/i;
const FEE_TOO_HIGH = /fee exceeds maximum|absurdly-high-fee|max-fee-exceeded/i;
/** Refusals of the mempool that pass as fees fall or the mempool drains. */
const PASSING_REFUSAL =
  /min relay fee not met|mempool min fee not met|mempool full|insufficient fee|too-long-mempool-chain|too-long-mempool/i;
/** What the node says of a destination it will not pay: an address it cannot read, an amount below dust. */
const DESTINATION_REFUSAL = /dust|invalid address|invalid [a-z]+ address|amount too small/i;

/** Whether `err` (from building a transaction) is the node refusing a destination or an amount, not the whole. */
function isDestinationRefusal(err: unknown): err is RpcError {
  return err instanceof RpcError && (err.code === RpcCode.INVALID_ADDRESS_OR_KEY || DESTINATION_REFUSAL.test(err.rpcMessage));
}

/** An address as the node prints it: bech32 in lower case (an all-upper-case one is the same address). */
const normalAddress = (address: string) => (address === address.toUpperCase() ? address.toLowerCase() : address);

/**
 * The fee rate (coin per kvB) of a BIP125 replacement of a version at `last`, the node estimating `estimate`,
 * under `cap`: 25% above the last and at least the estimate, clamped to the cap; null when the cap leaves less
 * than the incremental relay fee above the last (BIP125 rule 4: the replacement pays at least that much more
 * per vbyte of its own size), and the payout waits at the cap.
 */
export function replacementRate(last: string, estimate: string, cap: string, decimals: number): string | null {
  const floor = new Decimal(last).times(BUMP_FACTOR).toDecimalPlaces(decimals, Decimal.ROUND_UP);
  const next = Decimal.min(Decimal.max(estimate, floor), cap);
  if (next.lessThan(new Decimal(last).plus(INCREMENTAL_RELAY_FEE))) return null;
  return next.toFixed();
}

/** Whether the node's refusal `message` to a broadcast can pass (unit tables in test/unit/adapters/bitcoin-refusals.test.ts). */
export function isPassingRefusal(message: string): boolean {
  return PASSING_REFUSAL.test(message);
}

/** The sender over the watch-only wallet `options.rpc` and the signer wallet `options.signer`. */
export function createPayoutSender(options: BitcoinSenderOptions): PayoutSender {
  const { rpc, signer } = options;
  const toCoin = (value: Decimal.Value) => new Decimal(value).toDecimalPlaces(options.decimals, Decimal.ROUND_UP).toFixed();
  // An amount or fee rate the node answered, by the strict rule (adapters/boundary.ts): never NaN or Infinity.
  const amountOf = (value: unknown, what: string, sign: AmountRule['sign']) =>
    parseNodeAmount(value, what, { decimals: options.decimals, sign });
  // Prepared and not yet broadcast: their inputs stay locked until broadcast or UNBROADCAST_LOCK_MS.
  const prepared = new Map<string, { inputs: Outpoint[]; at: number }>();
  let changeAddress: Promise<string> | undefined;
  // Coin selection and funding, one at a time: two payouts prepared at once read the same unlocked coins
  // (listunspent) before either locks its inputs, and the second would be refused as a conflict.
  let funding: Promise<unknown> = Promise.resolve();
  function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const run = funding.then(work, work);
    funding = run.catch(() => undefined);
    return run;
  }

  function change(): Promise<string> {
    changeAddress ??= (async () => {
      const derived = options.account.derive(1, 0);
      await options.importer(derived, { internal: true });
      return derived.address;
    })().catch((err: unknown) => {
      changeAddress = undefined;
      throw err;
    });
    return changeAddress;
  }

  /** Coin per 1000 virtual bytes, as a decimal string. */
  async function feeRate(): Promise<string> {
    const estimate = await rpc.call<{ feerate?: unknown }>('estimatesmartfee', [options.feeTargetBlocks]);
    return estimate.feerate !== undefined ? amountOf(estimate.feerate, 'estimatesmartfee feerate', 'positive') : options.fallbackFeeRate;
  }

  async function unlock(inputs: Outpoint[]): Promise<void> {
    // One at a time: lockunspent refuses the whole list when one of them is spent or not locked.
    for (const input of inputs) {
      await rpc.call('lockunspent', [true, [input]]).catch((err: unknown) => {
        if (!(err instanceof RpcError)) throw err;
      });
    }
  }

  async function inputsOf(hex: string): Promise<Outpoint[]> {
    const tx = await rpc.call<{ vin: Outpoint[] }>('decoderawtransaction', [hex]);
    return tx.vin.map(({ txid, vout }) => ({ txid, vout }));
  }

  // Payouts prepared long ago and never broadcast (another sender's result was committed): their inputs go
  // back. Safe even for one still to be broadcast: spent by another payout meanwhile, it is then refused
  // with missing inputs, which proves it was never paid.
  async function releaseStale(): Promise<void> {
    const before = options.now().getTime() - UNBROADCAST_LOCK_MS;
    for (const [txid, entry] of prepared) {
      if (entry.at > before) continue;
      prepared.delete(txid);
      const known = await rpc.call('gettransaction', [txid, true]).then(
        () => true,
        (err: unknown) => {
          if (err instanceof RpcError && err.code === RpcCode.INVALID_ADDRESS_OR_KEY) return false;
          throw err;
        },
      );
      if (!known) await unlock(entry.inputs);
    }
  }

  async function wasMined(txid: string): Promise<boolean> {
    try {
      const tx = await rpc.call<{ confirmations: number }>('gettransaction', [txid, true]);
      return tx.confirmations > 0;
    } catch (err) {
      if (err instanceof RpcError && err.code === RpcCode.INVALID_ADDRESS_OR_KEY) return false;
      throw new AmbiguousBroadcastError(`could not tell whether ${txid} is mined: ${(err as Error).message}`, { cause: err });
    }
  }

  async function refused(txid: string, hex: string, reason: string, passing: boolean, conflict = false): Promise<BroadcastOutcome> {
    prepared.delete(txid);
    await unlock(await inputsOf(hex)).catch(() => undefined);
    return { kind: 'rejected', reason, passing, conflict };
  }

  // Spendable coins with at least minConfirmations, largest first, enough for `amount` at `rate` with a margin
  // (for `outputs` payment outputs and the change).
  async function selectInputs(amount: string, rate: string, outputs = 1): Promise<Outpoint[]> {
    const listed = await rpc.call<Array<{ txid: string; vout: number; amount: unknown; solvable?: boolean }>>('listunspent', [
      options.minConfirmations,
      9_999_999,
      [],
      false,
    ]);
    const unspent = listed.map((u) => ({ ...u, amount: amountOf(u.amount, 'listunspent amount', 'nonNegative') }));
    const coins = unspent.filter((u) => u.solvable !== false).sort((a, b) => new Decimal(b.amount).comparedTo(a.amount));
    const chosen: Outpoint[] = [];
    let total = new Decimal(0);
    for (const coin of coins) {
      chosen.push({ txid: coin.txid, vout: coin.vout });
      total = total.plus(coin.amount);
      const fee = new Decimal(rate)
        .times(BASE_VBYTES + OUTPUT_VBYTES * (outputs - 1) + INPUT_VBYTES * chosen.length)
        .dividedBy(1000)
        .times(2);
      if (total.greaterThanOrEqualTo(new Decimal(amount).plus(fee))) return chosen;
    }
    throw new PayoutBuildError(
      `the hot wallet's coins with ${options.minConfirmations} confirmations (${total.toFixed()}) do not cover ${amount} and its fee`,
      true,
    );
  }

  async function signAndFinalise(psbt: string, key: string): Promise<string> {
    const signed = await signer.call<{ psbt: string; complete: boolean }>('walletprocesspsbt', [psbt, true, 'ALL', true]);
    if (!signed.complete) throw new Error(`the signer wallet could not sign every input of the payout ${key}`);
    const final = await signer.call<{ hex?: string; complete: boolean }>('finalizepsbt', [signed.psbt, true]);
    if (!final.complete || !final.hex) throw new Error(`the payout ${key} could not be finalised`);
    return final.hex;
  }

  // The output paying each of `orders` in the signed transaction `hex`, by order key; throws when one is not paid
  // exactly its amount (a replacement must pay every output of the batch it replaces).
  async function outputsOf(hex: string, orders: PayoutOrder[]): Promise<Record<string, number>> {
    const tx = await rpc.call<{ vout: Array<{ n: number; value: unknown; scriptPubKey: { address?: string; addresses?: string[] } }> }>(
      'decoderawtransaction',
      [hex],
    );
    const outputs: Record<string, number> = {};
    for (const order of orders) {
      const paying = tx.vout.find(
        (o) =>
          (o.scriptPubKey.address ?? o.scriptPubKey.addresses?.[0]) === normalAddress(order.address) &&
          new Decimal(amountOf(o.value, 'decoderawtransaction vout value', 'nonNegative')).eq(order.amount),
      );
      if (!paying) throw new Error(`the batch transaction does not pay ${order.amount} to ${order.address} (payout ${order.key})`);
      outputs[order.key] = paying.n;
    }
    return outputs;
  }

  // Builds `err` (from building a transaction for `what`) into the error `prepare` throws.
  function buildError(err: unknown, what: string): unknown {
    if (isDestinationRefusal(err)) return new PayoutBuildError(`${what} cannot be built: ${err.rpcMessage}`, false, { cause: err });
    if (err instanceof RpcError && err.code === RpcCode.WALLET_INSUFFICIENT_FUNDS) {
      return new PayoutBuildError(`${what}: the hot wallet cannot pay it now (${err.rpcMessage})`, true, { cause: err });
    }
    return err;
  }

  // One transaction paying every order (change last), funded from coins with minConfirmations, signed.
  async function buildBatch(orders: PayoutOrder[], changeTo: string, rate: string): Promise<SignedBatch> {
    const addresses = new Set(orders.map((o) => normalAddress(o.address)));
    if (addresses.size !== orders.length) throw new Error('a batch pays each address once: the node refuses a duplicated address');
    const total = orders.reduce((sum, o) => sum.plus(o.amount), new Decimal(0)).toFixed();
    const funded = await oneAtATime(async () =>
      rpc.call<{ psbt: string }>('walletcreatefundedpsbt', [
        await selectInputs(total, rate, orders.length),
        orders.map((o) => ({ [o.address]: o.amount })),
        0,
        {
          add_inputs: false,
          includeWatching: true,
          lockUnspents: true,
          changeAddress: changeTo,
          changePosition: orders.length,
          feeRate: rate,
          replaceable: true,
        },
        true,
      ]),
    );
    const decoded = await rpc.call<{ tx: { vin: Outpoint[] } }>('decodepsbt', [funded.psbt]);
    const inputs = decoded.tx.vin.map(({ txid, vout }) => ({ txid, vout }));
    try {
      const hex = await signAndFinalise(funded.psbt, `batch of ${orders.length} (${orders[0]!.key}...)`);
      const { txid } = await rpc.call<{ txid: string }>('decoderawtransaction', [hex]);
      const outputs = await outputsOf(hex, orders);
      prepared.set(txid, { inputs, at: options.now().getTime() });
      return { txHash: txid, bytes: hex, fee: rate, outputs };
    } catch (err) {
      await unlock(inputs).catch(() => undefined);
      throw err;
    }
  }

  // Which of `orders` the node refuses alone (its destination or its amount): each is funded on its own,
  // nothing locked, nothing signed.
  async function refusedAlone(orders: PayoutOrder[], changeTo: string, rate: string) {
    const refused: Array<{ key: string; error: PayoutBuildError }> = [];
    for (const order of orders) {
      try {
        await rpc.call('walletcreatefundedpsbt', [
          [],
          [{ [order.address]: order.amount }],
          0,
          { includeWatching: true, lockUnspents: false, changeAddress: changeTo, feeRate: rate },
          true,
        ]);
      } catch (err) {
        if (isDestinationRefusal(err)) {
          refused.push({
            key: order.key,
            error: new PayoutBuildError(`payout ${order.key} cannot be built: ${err.rpcMessage}`, false, { cause: err }),
          });
        }
      }
    }
    return refused;
  }

  // A child of `last` (the payment, or the last boost) that spends its output to the hot wallet's change address,
  // paying what brings the package of its unconfirmed ancestors and itself to `rate`.
  async function boost(order: { key: string }, last: { txHash: string; bytes: string }, rate: Decimal) {
    const entry = await rpc.call<{ ancestorsize: number; fees: { ancestor: unknown } }>('getmempoolentry', [last.txHash]);
    const ancestorFee = amountOf(entry.fees.ancestor, 'getmempoolentry fees.ancestor', 'nonNegative');
    const changeTo = await change();
    const tx = await rpc.call<{ vout: Array<{ n: number; value: string; scriptPubKey: { address?: string; addresses?: string[] } }> }>(
      'decoderawtransaction',
      [last.bytes],
    );
    const output = tx.vout.find((o) => (o.scriptPubKey.address ?? o.scriptPubKey.addresses?.[0]) === changeTo);
    if (!output) throw new Error(`payout ${order.key}: ${last.txHash} has no change output to pay for it from`);
    const packageFee = rate.times(entry.ancestorsize + BOOST_VBYTES).dividedBy(1000);
    const own = Decimal.max(packageFee.minus(ancestorFee), new Decimal(MIN_RELAY_FEE_RATE).times(BOOST_VBYTES).dividedBy(1000));
    const childRate = own.times(1000).dividedBy(BOOST_VBYTES).toDecimalPlaces(options.decimals, Decimal.ROUND_UP);
    const funded = await rpc.call<{ psbt: string }>('walletcreatefundedpsbt', [
      [{ txid: last.txHash, vout: output.n }],
      [{ [changeTo]: amountOf(output.value, 'decoderawtransaction vout value', 'positive') }],
      0,
      {
        add_inputs: false,
        includeWatching: true,
        lockUnspents: true,
        changeAddress: changeTo,
        feeRate: childRate.toFixed(),
        subtractFeeFromOutputs: [0],
        replaceable: true,
      },
      true,
    ]);
    const hex = await signAndFinalise(funded.psbt, order.key);
    const { txid } = await rpc.call<{ txid: string }>('decoderawtransaction', [hex]);
    return { txHash: txid, bytes: hex, fee: rate.toFixed(), kind: 'boost' as const };
  }

  return {
    async prepare(order) {
      await releaseStale();
      const [changeTo, estimate] = await Promise.all([change(), feeRate()]);
      const rate = Decimal.min(estimate, options.maxFeeRate).toFixed();
      const funded = await oneAtATime(async () => {
        const selected = await selectInputs(order.amount, rate);
        try {
          return await rpc.call<{ psbt: string }>('walletcreatefundedpsbt', [
            selected,
            [{ [order.address]: order.amount }],
            0,
            { add_inputs: false, includeWatching: true, lockUnspents: true, changeAddress: changeTo, feeRate: rate, replaceable: true },
            true,
          ]);
        } catch (err) {
          throw buildError(err, `payout ${order.key}`);
        }
      });
      const decoded = await rpc.call<{ tx: { vin: Outpoint[] } }>('decodepsbt', [funded.psbt]);
      const inputs = decoded.tx.vin.map(({ txid, vout }) => ({ txid, vout }));
      try {
        const hex = await signAndFinalise(funded.psbt, order.key);
        const { txid } = await rpc.call<{ txid: string }>('decoderawtransaction', [hex]);
        prepared.set(txid, { inputs, at: options.now().getTime() });
        return { txHash: txid, bytes: hex, fee: rate };
      } catch (err) {
        await unlock(inputs).catch(() => undefined);
        throw err;
      }
    },

    async replace(order, versions) {
      const last = versions.at(-1)!;
      const estimate = await feeRate();
      const next = replacementRate(last.fee ?? estimate, estimate, options.maxFeeRate, options.decimals);
      if (next === null) return null;
      const rate = new Decimal(next);
      if (options.bump === 'cpfp') return boost(order, last, rate);
      // sat/vB, as psbtbumpfee's fee_rate takes it: coin per kvB times 10^8 / 1000.
      const satPerVbyte = rate.times(new Decimal(10).pow(options.decimals)).dividedBy(1000).toDecimalPlaces(3, Decimal.ROUND_UP);
      const bumped = await rpc.call<{ psbt: string }>('psbtbumpfee', [last.txHash, { fee_rate: satPerVbyte.toFixed() }]);
      const hex = await signAndFinalise(bumped.psbt, order.key);
      const { txid } = await rpc.call<{ txid: string }>('decoderawtransaction', [hex]);
      return { txHash: txid, bytes: hex, fee: rate.toFixed() };
    },

    async prepareBatch(orders) {
      await releaseStale();
      const [changeTo, estimate] = await Promise.all([change(), feeRate()]);
      const rate = Decimal.min(estimate, options.maxFeeRate).toFixed();
      const excluded: Array<{ key: string; error: PayoutBuildError }> = [];
      let remaining = [...orders];
      for (;;) {
        if (remaining.length === 0) return { signed: null, excluded };
        try {
          return { signed: await buildBatch(remaining, changeTo, rate), excluded };
        } catch (err) {
          const what = `the batch of ${remaining.length} payouts`;
          if (!isDestinationRefusal(err)) throw buildError(err, what);
          // The node refused a destination or an amount of the batch: each alone tells whose.
          const refused = await refusedAlone(remaining, changeTo, rate);
          if (refused.length === 0) throw new PayoutBuildError(`${what} cannot be built: ${err.rpcMessage}`, false, { cause: err });
          excluded.push(...refused);
          remaining = remaining.filter((o) => !refused.some((r) => r.key === o.key));
        }
      }
    },

    async replaceBatch(orders, versions) {
      const last = versions.at(-1)!;
      const estimate = await feeRate();
      const next = replacementRate(last.fee ?? estimate, estimate, options.maxFeeRate, options.decimals);
      if (next === null) return null;
      const rate = new Decimal(next);
      const key = `batch of ${orders.length} (${orders[0]?.key}...)`;
      if (options.bump === 'cpfp') return { ...(await boost({ key }, last, rate)), outputs: {} };
      const satPerVbyte = rate.times(new Decimal(10).pow(options.decimals)).dividedBy(1000).toDecimalPlaces(3, Decimal.ROUND_UP);
      const bumped = await rpc.call<{ psbt: string }>('psbtbumpfee', [last.txHash, { fee_rate: satPerVbyte.toFixed() }]);
      const hex = await signAndFinalise(bumped.psbt, key);
      const { txid } = await rpc.call<{ txid: string }>('decoderawtransaction', [hex]);
      // Exactly the same outputs: every payout of the batch is paid its amount by the replacement too.
      return { txHash: txid, bytes: hex, fee: rate.toFixed(), outputs: await outputsOf(hex, orders) };
    },

    async discard(signed) {
      prepared.delete(signed.txHash);
      await unlock(await inputsOf(signed.bytes));
    },

    async broadcast(_order, signed) {
      try {
        await rpc.call('sendrawtransaction', [signed.bytes]);
        prepared.delete(signed.txHash);
        return { kind: 'accepted' };
      } catch (err) {
        if (err instanceof RpcTransportError) {
          if (err.details.refused) throw err;
          throw new AmbiguousBroadcastError(`broadcast of ${signed.txHash}: ${err.message}`, { cause: err });
        }
        if (!(err instanceof RpcError)) throw new AmbiguousBroadcastError(`broadcast of ${signed.txHash} failed`, { cause: err });
        const { code, rpcMessage } = err;
        if (code === RpcCode.VERIFY_ALREADY_IN_CHAIN || ALREADY_KNOWN.test(rpcMessage)) {
          prepared.delete(signed.txHash);
          return { kind: 'accepted' };
        }
        if (code === RpcCode.IN_WARMUP) throw err;
        if (code === RpcCode.VERIFY_ERROR && MISSING_INPUTS.test(rpcMessage)) {
          if (await wasMined(signed.txHash)) {
            prepared.delete(signed.txHash);
            return { kind: 'accepted' };
          }
          return refused(signed.txHash, signed.bytes, `inputs missing or spent by another transaction (${rpcMessage})`, false, true);
        }
        if (
          code === RpcCode.VERIFY_REJECTED ||
          code === RpcCode.DESERIALIZATION_ERROR ||
          (code === RpcCode.VERIFY_ERROR && FEE_TOO_HIGH.test(rpcMessage))
        ) {
          return refused(signed.txHash, signed.bytes, `the node refused it: ${rpcMessage} (RPC ${code})`, isPassingRefusal(rpcMessage));
        }
        throw new AmbiguousBroadcastError(`broadcast of ${signed.txHash}: ${err.message}`, { cause: err });
      }
    },

    async spendable() {
      // A wallet without private keys (legacy, imported watch-only) counts its coins under `watchonly`; a
      // descriptor wallet without private keys counts them under `mine`.
      const balances = await rpc.call<{ mine?: { trusted?: unknown }; watchonly?: { trusted?: unknown } }>('getbalances');
      const watchOnly = amountOf(balances.watchonly?.trusted ?? 0, 'getbalances watchonly.trusted', 'nonNegative');
      return new Decimal(watchOnly).plus(amountOf(balances.mine?.trusted, 'getbalances mine.trusted', 'nonNegative')).toFixed();
    },

    async feeEstimate() {
      return toCoin(new Decimal(await feeRate()).times(TYPICAL_PAYOUT_VBYTES).dividedBy(1000));
    },
  };
}
