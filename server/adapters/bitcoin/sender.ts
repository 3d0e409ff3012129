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
 *   maximum": rejected, it is not on this node; as it is only ever broadcast through this node, nowhere;
 * - no answer (a timeout, a reset connection) or an error not listed: ambiguous. A refused connection or a
 *   node still starting proves nothing went out: a plain error, which the job engine retries.
 */
import { Decimal } from 'decimal.js';
import { AmbiguousBroadcastError, type BroadcastOutcome, type PayoutSender } from '../chain.js';
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
}

interface Outpoint {
  txid: string;
  vout: number;
}

const MISSING_INPUTS = /missing inputs|missingorspent/i;
const ALREADY_KNOWN = /txn-already-in-mempool|txn-already-known|already in block chain|outputs already in utxo set/i;
const FEE_TOO_HIGH = /fee exceeds maximum|absurdly-high-fee|max-fee-exceeded/i;

/** The sender over the watch-only wallet `options.rpc` and the signer wallet `options.signer`. */
export function createPayoutSender(options: BitcoinSenderOptions): PayoutSender {
  const { rpc, signer } = options;
  const toCoin = (value: Decimal.Value) => new Decimal(value).toDecimalPlaces(options.decimals, Decimal.ROUND_UP).toFixed();
  // Prepared and not yet broadcast: their inputs stay locked until broadcast or UNBROADCAST_LOCK_MS.
  const prepared = new Map<string, { inputs: Outpoint[]; at: number }>();
  let changeAddress: Promise<string> | undefined;

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
    const estimate = await rpc.call<{ feerate?: string | number }>('estimatesmartfee', [options.feeTargetBlocks]);
    return estimate.feerate !== undefined ? new Decimal(String(estimate.feerate)).toFixed() : options.fallbackFeeRate;
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

  async function refused(txid: string, hex: string, reason: string): Promise<BroadcastOutcome> {
    prepared.delete(txid);
    await unlock(await inputsOf(hex)).catch(() => undefined);
    return { kind: 'rejected', reason };
  }

  return {
    async prepare(order) {
      await releaseStale();
      const [changeTo, rate] = await Promise.all([change(), feeRate()]);
      const funded = await rpc.call<{ psbt: string }>('walletcreatefundedpsbt', [
        [],
        [{ [order.address]: order.amount }],
        0,
        { includeWatching: true, lockUnspents: true, changeAddress: changeTo, feeRate: rate, replaceable: false },
        true,
      ]);
      const decoded = await rpc.call<{ tx: { vin: Outpoint[] } }>('decodepsbt', [funded.psbt]);
      const inputs = decoded.tx.vin.map(({ txid, vout }) => ({ txid, vout }));
      try {
        const signed = await signer.call<{ psbt: string; complete: boolean }>('walletprocesspsbt', [funded.psbt, true, 'ALL', true]);
        if (!signed.complete) throw new Error(`the signer wallet could not sign every input of the payout ${order.key}`);
        const final = await signer.call<{ hex?: string; complete: boolean }>('finalizepsbt', [signed.psbt, true]);
        if (!final.complete || !final.hex) throw new Error(`the payout ${order.key} could not be finalised`);
        const { txid } = await rpc.call<{ txid: string }>('decoderawtransaction', [final.hex]);
        prepared.set(txid, { inputs, at: options.now().getTime() });
        return { txHash: txid, bytes: final.hex };
      } catch (err) {
        await unlock(inputs).catch(() => undefined);
        throw err;
      }
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
          return refused(signed.txHash, signed.bytes, `inputs missing or spent by another transaction (${rpcMessage})`);
        }
        if (
          code === RpcCode.VERIFY_REJECTED ||
          code === RpcCode.DESERIALIZATION_ERROR ||
          (code === RpcCode.VERIFY_ERROR && FEE_TOO_HIGH.test(rpcMessage))
        ) {
          return refused(signed.txHash, signed.bytes, `the node refused it: ${rpcMessage} (RPC ${code})`);
        }
        throw new AmbiguousBroadcastError(`broadcast of ${signed.txHash}: ${err.message}`, { cause: err });
      }
    },

    async spendable() {
      // A wallet without private keys (legacy, imported watch-only) counts its coins under `watchonly`; a
      // descriptor wallet without private keys counts them under `mine`.
      const balances = await rpc.call<{ mine: { trusted: string }; watchonly?: { trusted: string } }>('getbalances');
      return new Decimal(String(balances.watchonly?.trusted ?? 0)).plus(String(balances.mine.trusted)).toFixed();
    },

    async feeEstimate() {
      return toCoin(new Decimal(await feeRate()).times(TYPICAL_PAYOUT_VBYTES).dividedBy(1000));
    },
  };
}
