/**
 * Building, signing and broadcasting EVM transactions, shared by the payout sender and the sweeper. Signing is
 * local (the key never leaves the process); the hash is keccak-256 of the signed serialization, so it is known
 * before anything is broadcast, and a retry broadcasts the same bytes.
 */
import {
  BaseError,
  RpcRequestError,
  encodeFunctionData,
  erc20Abi,
  keccak256,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
} from 'viem';
import { AmbiguousBroadcastError, type BroadcastOutcome } from '../chain.js';
import { classifyBroadcastRefusal } from './broadcast-errors.js';

/** Gas of a plain value transfer. */
export const NATIVE_TRANSFER_GAS = 21_000n;
/** What a token `transfer` is assumed to cost where it is not estimated (fee estimates, sweeps' top-ups). */
export const TOKEN_TRANSFER_GAS = 100_000n;
/** An estimated gas limit is raised by this share (percent), as a node's estimate may fall short. */
const GAS_ESTIMATE_MARGIN_PERCENT = 25n;

/** EIP-1559 fees per gas, in wei. */
export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** The node's EIP-1559 fees now. */
export async function currentFees(client: PublicClient): Promise<Fees> {
  const { maxFeePerGas, maxPriorityFeePerGas } = await client.estimateFeesPerGas({ type: 'eip1559', chain: null });
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/** A transfer to sign: native value to `to`, or a token `transfer` of `value` base units to `to`. */
export interface Transfer {
  to: string;
  value: bigint;
  /** The token contract; absent for the native asset. */
  token?: string;
}

/** The call a transfer makes: its `to`, `value` and `data`. */
export function callOf(transfer: Transfer): { to: Hex; value: bigint; data?: Hex } {
  if (!transfer.token) return { to: transfer.to as Hex, value: transfer.value };
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [transfer.to as Hex, transfer.value] });
  return { to: transfer.token as Hex, value: 0n, data };
}

/**
 * The gas limit of `transfer` from `from`: the node's estimate plus a margin, for a token and for the native
 * asset alike (a contract wallet's `receive` needs more than 21,000). A plain account's native transfer costs
 * exactly 21,000 whatever the margin: the limit is only a ceiling.
 */
export async function gasLimitOf(client: PublicClient, from: string, transfer: Transfer): Promise<bigint> {
  const estimate = await client.estimateGas({ account: from as Hex, ...callOf(transfer) });
  if (!transfer.token && estimate === NATIVE_TRANSFER_GAS) return NATIVE_TRANSFER_GAS;
  return estimate + (estimate * GAS_ESTIMATE_MARGIN_PERCENT) / 100n;
}

/** A signed transaction: its hash and serialization (0x hex). */
export interface SignedTransaction {
  txHash: string;
  bytes: string;
}

/** Signs `transfer` with `account` at `nonce` (EIP-1559). */
export async function signTransfer(
  account: PrivateKeyAccount,
  params: { chainId: number; nonce: number; gas: bigint; fees: Fees; transfer: Transfer },
): Promise<SignedTransaction> {
  const bytes = await account.signTransaction({
    type: 'eip1559',
    chainId: params.chainId,
    nonce: params.nonce,
    gas: params.gas,
    ...params.fees,
    ...callOf(params.transfer),
  });
  return { txHash: keccak256(bytes), bytes };
}

/** The node's own message of a JSON-RPC error in `err`'s chain, or null when the request got no answer. */
function nodeMessage(err: unknown): string | null {
  if (!(err instanceof BaseError)) return null;
  const found = err.walk((e) => e instanceof RpcRequestError);
  return found instanceof RpcRequestError ? found.details || found.shortMessage : null;
}

/**
 * Broadcasts `signed` (`eth_sendRawTransaction`). Accepted when the node takes it or holds it already, or says
 * the nonce is spent and the receipt of our hash exists; rejected when the refusal proves it was not taken (the
 * caller releases its nonce); AmbiguousBroadcastError otherwise (no answer, a timeout, a competing transaction
 * with our nonce in the pool, an unknown error).
 */
export async function broadcastSigned(
  client: PublicClient,
  signed: SignedTransaction,
  /**
   * What "nonce too low" without a receipt of our hash means: `rejected` (the sweeper's reading: the nonce went
   * to another transaction), or `ambiguous` (a payout's: a lagging node may lack the receipt of our own mined
   * transaction, and the core proves a conflict before it calls a payout dead).
   */
  nonceTaken: 'rejected' | 'ambiguous' = 'rejected',
): Promise<BroadcastOutcome> {
  let message: string | null;
  try {
    await client.request({ method: 'eth_sendRawTransaction', params: [signed.bytes as Hex] });
    return { kind: 'accepted' };
  } catch (err) {
    message = nodeMessage(err);
    if (message === null) throw new AmbiguousBroadcastError(`broadcast of ${signed.txHash} got no answer`, { cause: err });
    const refusal = classifyBroadcastRefusal(message);
    if (refusal === 'known') return { kind: 'accepted' };
    if (refusal === 'rejected' || refusal === 'passing') {
      return { kind: 'rejected', reason: `the node refused ${signed.txHash}: ${message}`, passing: refusal === 'passing' };
    }
    if (refusal === 'ambiguous') throw new AmbiguousBroadcastError(`broadcast of ${signed.txHash}: ${message}`, { cause: err });
  }
  // The nonce is spent: by this transaction (mined: its receipt exists), or by another one.
  let receipt;
  try {
    receipt = await client.request({ method: 'eth_getTransactionReceipt', params: [signed.txHash as Hex] });
  } catch (err) {
    throw new AmbiguousBroadcastError(`broadcast of ${signed.txHash}: ${message}, and its receipt could not be read`, { cause: err });
  }
  if (receipt) return { kind: 'accepted' };
  if (nonceTaken === 'ambiguous') {
    throw new AmbiguousBroadcastError(`broadcast of ${signed.txHash}: ${message}, and the node has no receipt of it (yet)`);
  }
  return { kind: 'rejected', reason: `the nonce of ${signed.txHash} was spent by another transaction (${message})`, passing: false };
}
