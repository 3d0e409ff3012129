/**
 * The payout sender, Monero's cold-signing flow (monero-wallet-rpc: export_outputs, import_outputs,
 * export_key_images, import_key_images, transfer, sign_transfer, submit_transfer):
 * - Before it builds, and before it reads the balance, the view-only wallet learns what the signer spent: its
 *   outputs go to the signer (`export_outputs` → `import_outputs`) and the signer's key images come back
 *   (`export_key_images` → `import_key_images`), so a spend the view-only wallet did not submit itself (an
 *   operator's, from the signer) is known and its balance is right.
 * - prepare: `transfer` on the view-only wallet answers an unsigned transaction set (it cannot sign), and
 *   `sign_transfer` of that set on the signer wallet, exactly once: the signed set and its one hash are what the
 *   core commits before anything is broadcast. A retry broadcasts the same signed set; nothing is signed again.
 * - broadcast: `submit_transfer` of the same signed set on the view-only wallet. The same set again is accepted
 *   (the daemon has it, or has mined it). A failed submit is checked against the wallet: a transaction it knows
 *   (in the pool or mined) is accepted; otherwise the outcome is unknown (the wallet answers one code for a
 *   refusal and for a relay that timed out), so the payout is held for an operator (Monero has no fee bumping),
 *   and only the same set is ever sent again.
 *
 * The view-only wallet reserves nothing for an unsigned set: two built at once may pick the same inputs, and
 * the later one submitted is refused (held for an operator, who sees that the other paid).
 */
import type { Logger } from 'pino';
import { decodeMoneroAddress } from '../../domain/monero-address.js';
import { AmbiguousBroadcastError, PayoutBuildError, type BroadcastOutcome, type PayoutSender } from '../chain.js';
import { formatPiconero, MoneroErrorCode, MoneroRpcError, MoneroRpcTransportError, parsePiconero, type MoneroRpcClient } from './rpc.js';

export interface MoneroSenderOptions {
  /** The view-only wallet (builds, submits, watches). */
  rpc: MoneroRpcClient;
  /** The signer wallet (holds the spend key; may run --offline). */
  signer: MoneroRpcClient;
  /** Clock and cache of the fee estimate. */
  now?: () => Date;
  logger?: Pick<Logger, 'warn'>;
}

/** What a payout costs when the wallet cannot estimate it now (nothing to spend): 0.0001 XMR, a high mainnet fee. */
export const MONERO_FALLBACK_FEE = 100_000_000n;
const FEE_CACHE_MS = 60_000;
const HASH = /^[0-9a-f]{64}$/i;

export function createMoneroPayoutSender(options: MoneroSenderOptions): PayoutSender {
  const { rpc, signer } = options;
  const now = options.now ?? (() => new Date());
  let fee: { value: string; at: number } | undefined;

  /** The view-only wallet learns the signer's key images (what is spent). */
  async function syncSpends(): Promise<void> {
    const { outputs_data_hex: outputs } = await rpc.call<{ outputs_data_hex: string }>('export_outputs', { all: true });
    await signer.call('import_outputs', { outputs_data_hex: outputs });
    const { signed_key_images: images } = await signer.call<{ signed_key_images?: unknown[] }>('export_key_images', { all: true });
    if (images && images.length > 0) await rpc.call('import_key_images', { signed_key_images: images, offset: 0 });
  }

  async function unlockedBalance(): Promise<bigint> {
    const answer = await rpc.call<{ unlocked_balance: bigint }>('get_balance', { account_index: 0 });
    return answer.unlocked_balance;
  }

  async function buildUnsigned(destination: { address: string; amount: bigint }): Promise<{ unsigned: string; fee: bigint }> {
    let answer: { unsigned_txset?: string; tx_hash?: string; fee?: bigint; tx_blob?: string };
    try {
      answer = await rpc.call('transfer', { destinations: [destination], account_index: 0, priority: 0, get_tx_metadata: false });
    } catch (err) {
      if (err instanceof MoneroRpcError) {
        if (err.code === MoneroErrorCode.NOT_ENOUGH_MONEY || err.code === MoneroErrorCode.NOT_ENOUGH_UNLOCKED_MONEY) {
          throw new PayoutBuildError(`the XMR hot wallet cannot pay it now: ${err.rpcMessage}`, true, { cause: err });
        }
        if (err.code === MoneroErrorCode.WRONG_ADDRESS)
          throw new PayoutBuildError(`the wallet refuses the address: ${err.rpcMessage}`, false, { cause: err });
        if (err.code === MoneroErrorCode.TX_NOT_POSSIBLE || err.code === MoneroErrorCode.NOT_ENOUGH_OUTS_TO_MIX)
          throw new PayoutBuildError(`no transaction can pay it now: ${err.rpcMessage}`, true, { cause: err });
        // Too many small outputs to spend: they must be consolidated (sweep) first, which an operator does.
        if (err.code === MoneroErrorCode.TX_TOO_LARGE)
          throw new PayoutBuildError(`the transaction would be too large: ${err.rpcMessage}`, false, { cause: err });
      }
      throw err;
    }
    if (!answer.unsigned_txset) {
      // A wallet with the spend key sends at once: the service must only ever hold the view-only one.
      throw new Error(
        `transfer on ${rpc.endpoint} answered no unsigned transaction set${answer.tx_hash ? ` but sent ${answer.tx_hash}` : ''}: XMR_RPC_URL must be a view-only wallet`,
      );
    }
    return { unsigned: answer.unsigned_txset, fee: answer.fee ?? 0n };
  }

  /** Whether the view-only wallet has `txHash` as an outgoing transfer (in the pool or mined). */
  async function walletHas(txHash: string): Promise<boolean> {
    try {
      const { transfer } = await rpc.call<{ transfer?: { txid: string } }>('get_transfer_by_txid', { txid: txHash });
      return transfer?.txid === txHash;
    } catch (err) {
      if (err instanceof MoneroRpcError && err.code === MoneroErrorCode.WRONG_TXID) return false;
      throw err;
    }
  }

  // The wallet answers -41 for every failure of its relay to the daemon: a refusal, but also no connection, a
  // busy daemon or a timeout after the daemon took it. Only the wallet's having it is proof of anything; so it
  // is accepted then, and otherwise the outcome is unknown: the payout is held, and the same set can go again.
  async function refused(txHash: string, rpcMessage: string): Promise<BroadcastOutcome> {
    let has: boolean;
    try {
      has = await walletHas(txHash);
    } catch (err) {
      throw new AmbiguousBroadcastError(`could not tell whether ${txHash} is in the wallet: ${(err as Error).message}`, { cause: err });
    }
    if (has) return { kind: 'accepted' };
    throw new AmbiguousBroadcastError(
      `submit_transfer of ${txHash} failed (${rpcMessage}) and the wallet does not have it: refused by the daemon, or never relayed, or relayed and not recorded`,
    );
  }

  return {
    async prepare(order) {
      if (order.asset.symbol !== 'XMR' || order.asset.precision !== 12)
        throw new Error(`the Monero sender pays XMR (12 decimals), not ${order.asset.symbol}`);
      if (order.memo !== null)
        throw new Error(`Monero payouts carry no memo (a payment id is in an integrated address); payout ${order.key} has one`);
      decodeMoneroAddress(order.address); // a clear error before the wallet's
      const amount = parsePiconero(order.amount);
      if (amount <= 0n) throw new Error(`payout ${order.key}: amount ${order.amount} is not positive`);
      await syncSpends();
      const { unsigned } = await buildUnsigned({ address: order.address, amount });
      // Signed once; whatever happens next, this set is never signed again.
      const signed = await signer.call<{ signed_txset?: string; tx_hash_list?: string[] }>('sign_transfer', { unsigned_txset: unsigned });
      const hashes = signed.tx_hash_list ?? [];
      if (!signed.signed_txset || hashes.length !== 1 || !HASH.test(hashes[0])) {
        throw new Error(`sign_transfer answered ${hashes.length} transactions for payout ${order.key}; one was expected`);
      }
      return { txHash: hashes[0].toLowerCase(), bytes: signed.signed_txset };
    },

    async broadcast(_order, signed) {
      try {
        const answer = await rpc.call<{ tx_hash_list?: string[] }>('submit_transfer', { tx_data_hex: signed.bytes });
        const hashes = (answer.tx_hash_list ?? []).map((h) => h.toLowerCase());
        if (hashes.length !== 1 || hashes[0] !== signed.txHash) {
          throw new AmbiguousBroadcastError(`submit_transfer answered ${JSON.stringify(hashes)}, the payout is ${signed.txHash}`);
        }
        return { kind: 'accepted' };
      } catch (err) {
        if (err instanceof AmbiguousBroadcastError) throw err;
        if (err instanceof MoneroRpcTransportError) {
          if (err.details.refused) throw err; // never reached the wallet: retried
          throw new AmbiguousBroadcastError(`broadcast of ${signed.txHash}: ${err.message}`, { cause: err });
        }
        if (err instanceof MoneroRpcError && err.code === MoneroErrorCode.SIGNED_SUBMISSION) return refused(signed.txHash, err.rpcMessage);
        throw new AmbiguousBroadcastError(`broadcast of ${signed.txHash} failed`, { cause: err });
      }
    },

    async mined(txHash) {
      try {
        const { transfer } = await rpc.call<{ transfer?: { txid: string; height?: bigint | number; type?: string } }>(
          'get_transfer_by_txid',
          { txid: txHash },
        );
        return transfer?.txid === txHash && transfer.type !== 'failed' && Number(transfer.height ?? 0) > 0;
      } catch (err) {
        if (err instanceof MoneroRpcError && err.code === MoneroErrorCode.WRONG_TXID) return false;
        throw err;
      }
    },

    async spendable(asset) {
      if (asset.symbol !== 'XMR') throw new Error(`the Monero sender holds XMR, not ${asset.symbol}`);
      await syncSpends();
      // Unlocked only: change of a recent payout is locked for 10 blocks, and is not spendable until then.
      return formatPiconero(await unlockedBalance());
    },

    async feeEstimate() {
      if (fee && now().getTime() - fee.at < FEE_CACHE_MS) return fee.value;
      let value = formatPiconero(MONERO_FALLBACK_FEE);
      try {
        // A set paying the wallet itself a piconero: built, never signed, so it costs nothing but its fee's reading.
        const own = await rpc.call<{ address: string }>('get_address', { account_index: 0 });
        const built = await buildUnsigned({ address: own.address, amount: 1n });
        if (built.fee > 0n) value = formatPiconero(built.fee);
      } catch (err) {
        options.logger?.warn({ err }, 'xmr: the fee could not be estimated now; the fallback is used');
      }
      fee = { value, at: now().getTime() };
      return value;
    },
  };
}
