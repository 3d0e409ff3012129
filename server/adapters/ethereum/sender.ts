/**
 * The payout sender of an EVM network (docs/architecture.md#production, #money-that-ends-well): payouts signed locally by the hot wallet's key, EIP-1559
 * fees from the node, nonces from the shared allocator (one per order key, so a payout prepared twice spends
 * one nonce), broadcast of the same bytes as often as needed.
 *
 * Every transfer's gas is estimated, native ones too (a contract wallet's `receive` costs more than 21,000),
 * with a margin. A payout that waits is replaced at the same nonce with both fees raised by at least 12.5%
 * (nodes ask for 10%) and to at least the chain's level now, never above the fee cap; a payout held for an
 * operator, or a nonce no payout holds below a held one, is cancelled by a zero-value transfer to the hot
 * wallet itself, so later payouts never stall behind it.
 */
import {
  BaseError,
  erc20Abi,
  formatUnits,
  getAddress,
  isAddress,
  keccak256,
  parseGwei,
  parseTransaction,
  parseUnits,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
} from 'viem';
import { PayoutBuildError, type PayoutSender, type SignedPayout } from '../chain.js';
import type { AssetBook } from './context.js';
import type { NonceAllocator } from './nonces.js';
import {
  NATIVE_TRANSFER_GAS,
  TOKEN_TRANSFER_GAS,
  broadcastSigned,
  currentFees,
  gasLimitOf,
  signTransfer,
  type Fees,
} from './transactions.js';

/** What the sender needs. */
export interface EvmSenderOptions {
  client: PublicClient;
  /** The chain id signed into transactions (asked of the node once, when first needed). */
  chainId: () => Promise<number>;
  /** The hot wallet. */
  account: PrivateKeyAccount;
  assets: AssetBook;
  nonces: NonceAllocator;
  /** The most any version may offer per gas, in gwei (`<NET>_MAX_FEE_GWEI`). */
  maxFeeGwei: string;
  /**
   * A test hook (`PSS_TEST_EVM_NATIVE_GAS`): native transfers are sent with this gas limit instead of an
   * estimate, as versions before 1.13 did with 21,000, so a test can make a payout to a contract revert.
   */
  fixedNativeGas?: bigint;
}

/** Raises `value` by 12.5% (and at least 1 wei): above the 10% a node asks of a replacement. */
const bumped = (value: bigint) => value + (value * 125n) / 1000n + 1n;
const larger = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * The fees of a replacement of a transaction offering `last`, with the chain at `now` and the cap `cap` (wei
 * per gas): each fee 12.5% above the last one's and at least the chain's level; clamped to the cap; null when
 * the cap leaves less than the 10% a node asks above the last (the payout waits at the cap).
 */
export function replacementFees(last: Fees, now: Fees, cap: bigint): Fees | null {
  const tip = larger(bumped(last.maxPriorityFeePerGas), now.maxPriorityFeePerGas);
  const wanted = { maxPriorityFeePerGas: tip, maxFeePerGas: larger(larger(bumped(last.maxFeePerGas), now.maxFeePerGas), tip) };
  if (wanted.maxFeePerGas <= cap) return wanted;
  const atCap = { maxFeePerGas: cap, maxPriorityFeePerGas: wanted.maxPriorityFeePerGas > cap ? cap : wanted.maxPriorityFeePerGas };
  const minimum = (value: bigint) => value + (value * 100n) / 1000n;
  if (atCap.maxFeePerGas < minimum(last.maxFeePerGas) || atCap.maxPriorityFeePerGas < minimum(last.maxPriorityFeePerGas)) return null;
  return atCap;
}
const gweiOf = (wei: bigint) => formatUnits(wei, 9);

/** Why a transfer cannot be built, from the node's answer to its estimate. */
function buildError(err: unknown, order: { key: string }): Error {
  if (!(err instanceof BaseError)) return err as Error;
  const message = err.details || err.shortMessage;
  if (/insufficient funds|exceeds balance|insufficient balance/i.test(message)) {
    return new PayoutBuildError(`payout ${order.key}: the hot wallet cannot pay it now (${message})`, true, { cause: err });
  }
  if (/revert|invalid opcode|out of gas/i.test(message)) {
    return new PayoutBuildError(`payout ${order.key}: the transfer reverts in the node's estimate (${message})`, false, { cause: err });
  }
  return err;
}

/** The sender over the hot wallet `account`. */
export function createEvmPayoutSender(options: EvmSenderOptions): PayoutSender {
  const { client, chainId, account, assets, nonces } = options;
  const cap = parseGwei(options.maxFeeGwei);
  const capped = (fees: Fees): Fees => {
    const maxFeePerGas = fees.maxFeePerGas > cap ? cap : fees.maxFeePerGas;
    return { maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas > maxFeePerGas ? maxFeePerGas : fees.maxPriorityFeePerGas };
  };
  const withFee = (signed: { txHash: string; bytes: string }, fees: Fees): SignedPayout => ({ ...signed, fee: gweiOf(fees.maxFeePerGas) });

  // The fees that replace `last` whatever the cap (a cancellation): 12.5% above each, and the chain's level now.
  async function feesAbove(last: Fees): Promise<Fees> {
    return replacementFees(last, await currentFees(client), 2n ** 255n)!;
  }

  const decode = (version: SignedPayout) => {
    const tx = parseTransaction(version.bytes as Hex);
    if (tx.type !== 'eip1559' || tx.nonce === undefined || tx.gas === undefined || tx.to == null) {
      throw new Error(`version ${version.txHash} is not an EIP-1559 transfer of ours`);
    }
    return {
      nonce: tx.nonce,
      gas: tx.gas,
      to: tx.to,
      value: tx.value ?? 0n,
      data: tx.data,
      fees: { maxFeePerGas: tx.maxFeePerGas ?? 0n, maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? 0n },
    };
  };

  const signRaw = async (params: { nonce: number; gas: bigint; to: Hex; value: bigint; data?: Hex; fees: Fees }) => {
    const bytes = await account.signTransaction({
      type: 'eip1559',
      chainId: await chainId(),
      nonce: params.nonce,
      gas: params.gas,
      to: params.to,
      value: params.value,
      ...(params.data ? { data: params.data } : {}),
      ...params.fees,
    });
    return withFee({ txHash: keccak256(bytes), bytes }, params.fees);
  };

  return {
    async prepare(order) {
      if (!isAddress(order.address, { strict: false })) {
        throw new PayoutBuildError(`payout ${order.key}: ${order.address} is not an EVM address`, false);
      }
      const asset = await assets.of(order.asset.symbol);
      const transfer = {
        to: getAddress(order.address),
        value: parseUnits(order.amount, asset.decimals),
        token: asset.contract ?? undefined,
      };
      // Estimated before a nonce is held: a transfer the node says would fail holds nothing.
      const [gas, fees, chainNonce] = await Promise.all([
        !transfer.token && options.fixedNativeGas !== undefined
          ? options.fixedNativeGas
          : gasLimitOf(client, account.address, transfer).catch((err: unknown) => {
              throw buildError(err, order);
            }),
        currentFees(client),
        client.getTransactionCount({ address: account.address, blockTag: 'latest' }),
      ]);
      const nonce = await nonces.nonceFor({ address: account.address, key: order.key, chainNonce });
      const used = capped(fees);
      return withFee(await signTransfer(account, { chainId: await chainId(), nonce, gas, fees: used, transfer }), used);
    },

    async broadcast(order, signed) {
      const outcome = await broadcastSigned(client, signed, 'ambiguous');
      // Never taken: its nonce goes to the next payout (a new prepare for this key gets a new one).
      if (outcome.kind === 'rejected') await nonces.release(order.key);
      return outcome;
    },

    async replace(_order, versions) {
      const last = decode(versions.at(-1)!);
      const fees = replacementFees(last.fees, await currentFees(client), cap);
      return fees === null ? null : signRaw({ ...last, fees });
    },

    async cancel(_order, versions) {
      // Above every version (the last offers the most); a cancellation costs 21,000 gas, so it may pass the cap.
      const last = decode(versions.at(-1)!);
      const fees = await feesAbove(last.fees);
      return signRaw({ nonce: last.nonce, gas: NATIVE_TRANSFER_GAS, to: account.address, value: 0n, fees });
    },

    async nonces() {
      const mined = await client.getTransactionCount({ address: account.address, blockTag: 'latest' });
      return { mined, held: await nonces.held(account.address, mined) };
    },

    async fillNonce(nonce) {
      // Only a nonce no key holds: a payout's nonce is cancelled through `cancel`, with its bytes stored first.
      if (!(await nonces.claim(account.address, nonce, `fill:${nonce}`))) throw new Error(`nonce ${nonce} is held; it is not filled`);
      const now = await currentFees(client);
      const fees = { maxPriorityFeePerGas: bumped(now.maxPriorityFeePerGas), maxFeePerGas: bumped(now.maxFeePerGas) * 2n };
      const signed = await signRaw({ nonce, gas: NATIVE_TRANSFER_GAS, to: account.address, value: 0n, fees });
      const outcome = await broadcastSigned(client, signed, 'ambiguous');
      if (outcome.kind === 'rejected') throw new Error(`filling nonce ${nonce} was refused: ${outcome.reason}`);
      return signed.txHash;
    },

    async spendable(catalogAsset) {
      const asset = await assets.of(catalogAsset.symbol);
      const balance = asset.contract
        ? await client.readContract({ address: asset.contract as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [account.address] })
        : await client.getBalance({ address: account.address, blockTag: 'latest' });
      return formatUnits(balance, asset.decimals);
    },

    async feeEstimate(catalogAsset) {
      const asset = await assets.of(catalogAsset.symbol);
      const { maxFeePerGas } = await currentFees(client);
      return formatUnits((asset.contract ? TOKEN_TRANSFER_GAS : NATIVE_TRANSFER_GAS) * maxFeePerGas, 18);
    },
  };
}
