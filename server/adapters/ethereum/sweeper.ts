/**
 * Sweeping: moves a credited deposit from its derived address to the hot wallet. Internal bookkeeping of our own
 * funds: it never touches a swap. One call does the next step and says what it did:
 * - first, the address's native balance is reconciled with what its ledger explains (reconcile.ts): value the
 *   ledger cannot explain is handed to the caller's `hold` (which commits it as a held output) before anything
 *   is signed, and nothing this step does spends it;
 * - native: sends what the ledger explains less the gas of the transfer (at the node's max fee); the rest (held
 *   value, and anything that arrived after the ledger's last block) stays on the address: a transfer names its
 *   value, so the explained part moves alone;
 * - token: when what the ledger explains of the address's native balance cannot pay the gas of a `transfer`,
 *   the hot wallet first sends it the difference ('funding': call again once that is mined), then the address
 *   sends its whole token balance; its fee never exceeds the explained native balance, so held value stays.
 * Deposit keys derive from the account xprv (the same `0/<index>` as the addresses); nonces come from the shared
 * allocator (keys `<key>:sweep`, and `<key>:gas` for the hot wallet's top-up), released when a node refuses.
 * The sweep transaction itself is handed to the caller's `record` after it is signed and before it is broadcast,
 * so that it is committed first; `rebroadcast` sends those bytes again.
 */
import { erc20Abi, formatUnits, type Hex, type PrivateKeyAccount, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { bytesToHex } from 'viem/utils';
import type { CatalogAsset } from '../../domain/catalog.js';
import type { BroadcastOutcome } from '../chain.js';
import { deriveDepositAddress, parseExtendedKey } from './addresses.js';
import { NATIVE_DECIMALS, type AssetBook } from './context.js';
import type { NonceAllocator } from './nonces.js';
import { readAddress, type AddressLedger } from './reconcile.js';
import {
  NATIVE_TRANSFER_GAS,
  TOKEN_TRANSFER_GAS,
  broadcastSigned,
  currentFees,
  signTransfer,
  type SignedTransaction,
  type Transfer,
} from './transactions.js';

/** A deposit to sweep: the address at `0/<index>`, in `asset`; `key` names the sweep (one per deposit). */
export interface SweepRequest {
  key: string;
  index: number;
  asset: CatalogAsset;
  /** The address the caller knows the deposit by: refused when `0/<index>` is another one. */
  address?: string;
  /** What the ledger says about the address's native value: a step spends no more than it explains. */
  ledger: AddressLedger;
}

/** Native value on a deposit address that its ledger cannot explain, found before a sweep (to be held). */
export interface UnexplainedValue {
  address: string;
  /** In units of the native asset (a decimal string). */
  amount: string;
  /** The block the balance was compared at (the last the ledger holds). */
  block: { height: number; hash: string };
  /** The address's balance there, and what the ledger explains of it (decimal strings). */
  balance: string;
  explained: string;
}

/** A signed sweep transaction, before its broadcast. */
export interface SignedSweep {
  txHash: string;
  /** The signed transaction (0x hex). */
  bytes: string;
  /** What it moves, in units of the asset (a decimal string). */
  amount: string;
}

/** Where a transaction of a sweep stands on the node. */
export type SweepTransactionState = 'unknown' | 'pending' | 'mined' | 'reverted';

/** What one sweep step did. */
export type SweepStep =
  /** Nothing to move (no balance the ledger explains, or less than the gas of moving it). */
  | { kind: 'nothing'; reason: string }
  /** The ledger cannot be compared with the chain now (no scan yet, its block left the chain): call again later. */
  | { kind: 'waiting'; reason: string }
  /** The address sent transactions the ledger does not know: it cannot be reconciled, and nothing was moved. */
  | { kind: 'unreconciled'; reason: string }
  /** The hot wallet sent the address gas for its token transfer: call again once `txHash` is mined. */
  | { kind: 'funding'; txHash: string }
  /** The deposit's funds were sent to the hot wallet in `txHash` (the transaction given to `record`). */
  | { kind: 'swept'; txHash: string; amount: string }
  /**
   * The node refused a transaction of the sweep (its nonce was released); `recorded` says whether it was the
   * sweep transaction, already given to `record`.
   */
  | { kind: 'rejected'; reason: string; recorded: boolean };

/** What sweeping needs. */
export interface EvmSweeperOptions {
  client: PublicClient;
  /** The chain id signed into transactions (asked of the node once, when first needed). */
  chainId: () => Promise<number>;
  hotWallet: PrivateKeyAccount;
  /** The account extended private key (m/44'/60'/0'), whose `0/<index>` keys hold the deposits. */
  xprv: string;
  assets: AssetBook;
  nonces: NonceAllocator;
}

/** The sweeper of one network. */
export function createEvmSweeper(options: EvmSweeperOptions) {
  const { client, chainId, hotWallet, assets, nonces } = options;
  const account = parseExtendedKey(options.xprv);
  if (!account.privateKey) throw new Error('sweeping needs the account xprv, not its xpub');

  const keyOf = (index: number): PrivateKeyAccount => {
    const child = account.deriveChild(0).deriveChild(index);
    const signer = privateKeyToAccount(bytesToHex(child.privateKey!));
    if (signer.address !== deriveDepositAddress(account, index)) throw new Error(`key 0/${index} does not match its address`);
    return signer;
  };

  // Signs `transfer` from `from` with a nonce held by `key`, hands it to `beforeBroadcast` (which may refuse it by
  // throwing: nothing is broadcast), and broadcasts it; a refusal by the node releases the nonce.
  async function send(
    from: PrivateKeyAccount,
    key: string,
    gas: bigint,
    transfer: Transfer,
    beforeBroadcast: (signed: SignedTransaction) => Promise<void> = async () => undefined,
  ) {
    const [fees, chainNonce, id] = await Promise.all([
      currentFees(client),
      client.getTransactionCount({ address: from.address, blockTag: 'latest' }),
      chainId(),
    ]);
    const nonce = await nonces.nonceFor({ address: from.address, key, chainNonce });
    const signed = await signTransfer(from, { chainId: id, nonce, gas, fees, transfer });
    await beforeBroadcast(signed);
    const outcome = await broadcastSigned(client, signed);
    if (outcome.kind === 'rejected') await nonces.release(key);
    return { signed, outcome };
  }

  return {
    /** The symbol of the network's native asset (the ledger's outputs of it are what reconciliation counts). */
    nativeSymbol: assets.nativeSymbol,

    /**
     * Does the next step of sweeping `request`'s deposit. Value the ledger cannot explain goes to `hold` first,
     * and nothing is signed until `hold` resolved. The sweep transaction goes to `record` once signed, and the
     * hot wallet's gas top-up's hash to `recordFunding`; each is broadcast only after its callback resolved
     * (a throw there broadcasts nothing), so the service knows its own transactions before the chain shows them.
     * Throws AmbiguousBroadcastError when a broadcast's outcome is unknown.
     */
    async sweep(
      request: SweepRequest,
      record: (signed: SignedSweep) => Promise<void>,
      hold: (found: UnexplainedValue) => Promise<void>,
      recordFunding: (txHash: string) => Promise<void>,
    ): Promise<SweepStep> {
      const asset = await assets.of(request.asset.symbol);
      const deposit = keyOf(request.index);
      if (request.address !== undefined && request.address.toLowerCase() !== deposit.address.toLowerCase()) {
        throw new Error(`the deposit address ${request.address} is not 0/${request.index} of the deposit account`);
      }
      const reading = await readAddress(client, deposit.address, request.ledger);
      if (reading.kind === 'waiting') return reading;
      if (reading.kind === 'unknown-transactions') return { kind: 'unreconciled', reason: reading.reason };
      const { unexplained, explained, movable } = reading.reconciliation;
      const eth = (wei: bigint) => formatUnits(wei, NATIVE_DECIMALS);
      if (unexplained > 0n) {
        await hold({
          address: deposit.address,
          amount: eth(unexplained),
          block: reading.ledgerBlock,
          balance: eth(reading.balanceAtLedger),
          explained: eth(explained),
        });
      }
      const { maxFeePerGas } = await currentFees(client);
      if (!asset.contract) {
        const gasCost = NATIVE_TRANSFER_GAS * maxFeePerGas;
        if (movable <= gasCost) {
          return { kind: 'nothing', reason: `the balance the ledger explains (${eth(movable)}) does not cover the gas of moving it` };
        }
        const value = movable - gasCost;
        const amount = formatUnits(value, asset.decimals);
        const { signed, outcome } = await send(
          deposit,
          `${request.key}:sweep`,
          NATIVE_TRANSFER_GAS,
          { to: hotWallet.address, value },
          (tx) => record({ txHash: tx.txHash, bytes: tx.bytes, amount }),
        );
        if (outcome.kind === 'rejected') return { ...outcome, recorded: true };
        return { kind: 'swept', txHash: signed.txHash, amount };
      }
      const tokenBalance = await client.readContract({
        address: asset.contract as Hex,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [deposit.address],
      });
      if (tokenBalance === 0n) return { kind: 'nothing', reason: 'no token balance' };
      const gasCost = TOKEN_TRANSFER_GAS * maxFeePerGas;
      // The gas may come only from what the ledger explains (a top-up it records, or one the sweep sent and was
      // mined): held value is never spent on fees. A top-up still in the pool is not called for again: the job
      // waits for it to be mined (jobs/evm-sweep.ts).
      const gasBalance = movable;
      if (gasBalance < gasCost) {
        const { signed, outcome } = await send(
          hotWallet,
          `${request.key}:gas`,
          NATIVE_TRANSFER_GAS,
          { to: deposit.address, value: gasCost - gasBalance },
          (tx) => recordFunding(tx.txHash),
        );
        if (outcome.kind === 'rejected') return { ...outcome, recorded: false };
        return { kind: 'funding', txHash: signed.txHash };
      }
      const amount = formatUnits(tokenBalance, asset.decimals);
      const { signed, outcome } = await send(
        deposit,
        `${request.key}:sweep`,
        TOKEN_TRANSFER_GAS,
        { to: hotWallet.address, value: tokenBalance, token: asset.contract },
        (tx) => record({ txHash: tx.txHash, bytes: tx.bytes, amount }),
      );
      if (outcome.kind === 'rejected') return { ...outcome, recorded: true };
      return { kind: 'swept', txHash: signed.txHash, amount };
    },

    /**
     * Broadcasts a recorded sweep transaction again (the node did not know it: the process stopped before its
     * broadcast, or the node dropped it). Its nonce stays held whatever the answer: the bytes may have gone out
     * before. Throws AmbiguousBroadcastError when the outcome is unknown.
     */
    rebroadcast(signed: { txHash: string; bytes: string }): Promise<BroadcastOutcome> {
      return broadcastSigned(client, signed);
    },

    /**
     * Where the sweep's transaction `txHash` (a top-up or a sweep) stands: mined (or reverted) in a block, pending
     * in the node's pool, or unknown to the node (dropped, or replaced by another with its nonce).
     */
    async transactionState(txHash: string): Promise<SweepTransactionState> {
      const receipt = await client.request({ method: 'eth_getTransactionReceipt', params: [txHash as Hex] });
      if (receipt) return receipt.status === '0x1' ? 'mined' : 'reverted';
      const transaction = await client.request({ method: 'eth_getTransactionByHash', params: [txHash as Hex] });
      return transaction ? 'pending' : 'unknown';
    },
  };
}

/** The sweeper's operations. */
export type EvmSweeper = ReturnType<typeof createEvmSweeper>;
