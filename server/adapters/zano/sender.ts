/**
 * The payout sender, cold-signing flow (zano-docs signing-transactions-offline.md):
 * - prepare: `transfer` on the watch-only wallet (it picks and reserves the inputs and answers the unsigned tx,
 *   with tx_hash ""), then `sign_transfer` of that unsigned tx on the signer wallet, exactly once: its tx_hash and
 *   signed hex are what the core commits before anything is broadcast. A failed prepare never signs the same
 *   unsigned tx again (a second signing is a second, conflicting tx); the next prepare builds a new one.
 * - broadcast: `submit_transfer` of the same signed hex on the watch-only wallet. The same hex again while it is in
 *   the pool is accepted ("already in pool" is no error). KEY_IMAGE_ALREADY_SPENT (or a daemon refusal) means its
 *   inputs are spent: by itself (it is in the wallet's history or pool: accepted) or by another tx (rejected).
 *
 * Inputs a transfer reserved for a tx never broadcast (a failed signing, a prepare whose result another sender's
 * beat) stay reserved in the wallet. When a transfer finds too little money while the unlocked balance would pay
 * it, the reservations are cleared (`clear_utxo_cold_sig_reservation`: the wallet clears all of them) and the
 * transfer tried once more. Should that free the inputs of a payout committed and not yet broadcast, the later of
 * the two conflicting txs is refused at broadcast, which this sender reports as rejected (never paid).
 */
import type { Logger } from 'pino';
import { decodeZanoAddress } from '../../domain/zano-address.js';
import { AmbiguousBroadcastError, type BroadcastOutcome, type PayoutSender } from '../chain.js';
import { formatAtomic, parseAtomic, type AssetBook, type ZanoAsset } from './assets.js';
import { ZanoErrorCode, ZanoRpcError, ZanoRpcTransportError, type ZanoRpcClient } from './rpc.js';
import type { ZanoTransfer } from './watcher.js';

/** TX_MINIMUM_FEE: 0.01 ZANO (exchange-faq.md), in atomic units. */
export const ZANO_PAYOUT_FEE = 10_000_000_000n;
/** The ring size the transfer.md example and the custody guide use. */
export const ZANO_MIXIN = 15;

export interface ZanoSenderOptions {
  /** The watch-only wallet (builds, submits). */
  rpc: ZanoRpcClient;
  /** The signer wallet (holds the spend key). */
  signer: ZanoRpcClient;
  assets: AssetBook;
  logger?: Pick<Logger, 'warn'>;
}

interface Balance {
  asset_info?: { asset_id?: string; decimal_point?: bigint };
  unlocked?: bigint;
}

const REFUSED_BY_DAEMON = /tx_rejected|rejected by daemon/i;
/** The wallet could not read the signed tx or it is another wallet's: it never reached the daemon. */
const UNUSABLE_BLOB = /tx_signed_hex is invalid|Failed to decrypt|keys missmatch|keys mismatch/i;

export function createZanoPayoutSender(options: ZanoSenderOptions): PayoutSender {
  const { rpc, signer, assets } = options;

  function assetOf(symbol: string, precision: number): ZanoAsset {
    const asset = assets.bySymbol(symbol);
    if (asset.decimals !== precision) {
      throw new Error(`${symbol}: the catalogue has ${precision} decimals, the Zano adapter ${asset.decimals}`);
    }
    return asset;
  }

  async function balanceOf(asset: ZanoAsset): Promise<bigint> {
    await assets.whitelist(asset);
    const answer = await rpc.call<{ balances?: Balance[] }>('getbalance');
    const entry = (answer.balances ?? []).find((b) => b.asset_info?.asset_id?.toLowerCase() === asset.assetId);
    if (!entry) return 0n;
    const decimals = entry.asset_info?.decimal_point;
    if (decimals !== undefined && Number(decimals) !== asset.decimals) {
      throw new Error(`the wallet says ${asset.symbol} has ${decimals} decimals, the adapter is configured with ${asset.decimals}`);
    }
    return entry.unlocked ?? 0n;
  }

  async function buildUnsigned(destination: Record<string, unknown>): Promise<string> {
    const params = { destinations: [destination], fee: ZANO_PAYOUT_FEE, mixin: ZANO_MIXIN, hide_receiver: true, push_payer: false };
    const answer = await rpc.call<{ tx_hash?: string; tx_unsigned_hex?: string }>('transfer', params);
    if (answer.tx_hash || !answer.tx_unsigned_hex) {
      // A wallet with the spend key sends at once: the service must only ever hold the watch-only one.
      throw new Error(
        `transfer on ${rpc.endpoint} answered no unsigned tx${answer.tx_hash ? ` but sent ${answer.tx_hash}` : ''}: it must be a watch-only wallet`,
      );
    }
    return answer.tx_unsigned_hex;
  }

  /** Whether the watch-only wallet has `txHash` (mined or in the pool). */
  async function walletHas(txHash: string): Promise<boolean> {
    const found = await rpc.call<{ in?: ZanoTransfer[]; out?: ZanoTransfer[]; pool?: ZanoTransfer[] }>('search_for_transactions2', {
      tx_id: txHash,
      in: true,
      out: true,
      pool: true,
      filter_by_height: false,
      min_height: 0,
      max_height: 0,
    });
    return [...(found.in ?? []), ...(found.out ?? []), ...(found.pool ?? [])].some((t) => t.tx_hash === txHash);
  }

  async function spentElsewhere(txHash: string, rpcMessage: string): Promise<BroadcastOutcome> {
    let has: boolean;
    try {
      has = await walletHas(txHash);
    } catch (err) {
      throw new AmbiguousBroadcastError(`could not tell whether ${txHash} is in the wallet: ${(err as Error).message}`, { cause: err });
    }
    if (has) return { kind: 'accepted' };
    return { kind: 'rejected', reason: `its inputs are spent by another transaction (${rpcMessage})`, passing: false };
  }

  return {
    async prepare(order) {
      const asset = assetOf(order.asset.symbol, order.asset.precision);
      if (order.memo !== null)
        throw new Error(`Zano payouts carry no memo (the payment id is in an integrated address); payout ${order.key} has one`);
      decodeZanoAddress(order.address); // a clear error before the wallet's
      await assets.whitelist(asset);
      const amount = parseAtomic(order.amount, asset.decimals);
      if (amount <= 0n) throw new Error(`payout ${order.key}: amount ${order.amount} is not positive`);
      const destination = { address: order.address, amount, asset_id: asset.assetId };

      let unsigned: string;
      try {
        unsigned = await buildUnsigned(destination);
      } catch (err) {
        if (!(err instanceof ZanoRpcError && err.code === ZanoErrorCode.NOT_ENOUGH_MONEY)) throw err;
        const need = amount + (asset.assetId === assets.native.assetId ? ZANO_PAYOUT_FEE : 0n);
        const enough = (await balanceOf(asset)) >= need && (await balanceOf(assets.native)) >= ZANO_PAYOUT_FEE;
        if (!enough) throw err;
        options.logger?.warn({ payout: order.key }, 'zano: inputs reserved by unsent transfers; clearing the cold-signing reservations');
        await rpc.call('clear_utxo_cold_sig_reservation');
        unsigned = await buildUnsigned(destination);
      }
      // Signed once; whatever happens next, this unsigned tx is never signed again.
      const signed = await signer.call<{ tx_signed_hex?: string; tx_hash?: string }>('sign_transfer', { tx_unsigned_hex: unsigned });
      if (!signed.tx_signed_hex || !signed.tx_hash || !/^[0-9a-f]{64}$/i.test(signed.tx_hash)) {
        throw new Error(`sign_transfer answered no signed tx for payout ${order.key}`);
      }
      return { txHash: signed.tx_hash.toLowerCase(), bytes: signed.tx_signed_hex };
    },

    async broadcast(_order, signed) {
      try {
        const answer = await rpc.call<{ tx_hash?: string }>('submit_transfer', { tx_signed_hex: signed.bytes });
        if (answer.tx_hash && answer.tx_hash.toLowerCase() !== signed.txHash) {
          throw new AmbiguousBroadcastError(`submit_transfer answered tx ${answer.tx_hash}, the payout is ${signed.txHash}`);
        }
        return { kind: 'accepted' };
      } catch (err) {
        if (err instanceof AmbiguousBroadcastError) throw err;
        if (err instanceof ZanoRpcTransportError) {
          if (err.details.refused) throw err; // never reached the wallet: retried
          throw new AmbiguousBroadcastError(`broadcast of ${signed.txHash}: ${err.message}`, { cause: err });
        }
        if (!(err instanceof ZanoRpcError)) throw new AmbiguousBroadcastError(`broadcast of ${signed.txHash} failed`, { cause: err });
        if (err.code === ZanoErrorCode.KEY_IMAGE_ALREADY_SPENT) return spentElsewhere(signed.txHash, err.rpcMessage);
        if (err.code === ZanoErrorCode.GENERIC_TRANSFER_ERROR && REFUSED_BY_DAEMON.test(err.rpcMessage)) {
          return spentElsewhere(signed.txHash, err.rpcMessage);
        }
        if (err.code === ZanoErrorCode.DAEMON_IS_BUSY) throw err; // nothing relayed: retried
        if (
          (err.code === ZanoErrorCode.WRONG_ARGUMENT || err.code === ZanoErrorCode.GENERIC_TRANSFER_ERROR) &&
          UNUSABLE_BLOB.test(err.rpcMessage)
        ) {
          return { kind: 'rejected', reason: `the wallet cannot use the signed tx: ${err.rpcMessage}`, passing: false };
        }
        throw new AmbiguousBroadcastError(`broadcast of ${signed.txHash}: ${err.message}`, { cause: err });
      }
    },

    async spendable(asset) {
      const zanoAsset = assetOf(asset.symbol, asset.precision);
      return formatAtomic(await balanceOf(zanoAsset), zanoAsset.decimals);
    },

    async feeEstimate() {
      return formatAtomic(ZANO_PAYOUT_FEE, assets.native.decimals);
    },
  };
}
