/**
 * The payout sender of an EVM network (DESIGN 10): payouts signed locally by the hot wallet's key, EIP-1559
 * fees from the node, nonces from the shared allocator (one per order key, so a payout prepared twice spends
 * one nonce), broadcast of the same bytes as often as needed.
 */
import { erc20Abi, formatUnits, getAddress, isAddress, parseUnits, type Hex, type PrivateKeyAccount, type PublicClient } from 'viem';
import type { PayoutSender } from '../chain.js';
import type { AssetBook } from './context.js';
import type { NonceAllocator } from './nonces.js';
import { NATIVE_TRANSFER_GAS, TOKEN_TRANSFER_GAS, broadcastSigned, currentFees, gasLimitOf, signTransfer } from './transactions.js';

/** What the sender needs. */
export interface EvmSenderOptions {
  client: PublicClient;
  /** The chain id signed into transactions (asked of the node once, when first needed). */
  chainId: () => Promise<number>;
  /** The hot wallet. */
  account: PrivateKeyAccount;
  assets: AssetBook;
  nonces: NonceAllocator;
}

/** The sender over the hot wallet `account`. */
export function createEvmPayoutSender(options: EvmSenderOptions): PayoutSender {
  const { client, chainId, account, assets, nonces } = options;
  return {
    async prepare(order) {
      if (!isAddress(order.address, { strict: false })) throw new Error(`payout ${order.key}: ${order.address} is not an EVM address`);
      const asset = await assets.of(order.asset.symbol);
      const transfer = {
        to: getAddress(order.address),
        value: parseUnits(order.amount, asset.decimals),
        token: asset.contract ?? undefined,
      };
      // Estimated before a nonce is held: a transfer the node says would fail holds nothing.
      const [gas, fees, chainNonce, id] = await Promise.all([
        gasLimitOf(client, account.address, transfer),
        currentFees(client),
        client.getTransactionCount({ address: account.address, blockTag: 'latest' }),
        chainId(),
      ]);
      const nonce = await nonces.nonceFor({ address: account.address, key: order.key, chainNonce });
      return signTransfer(account, { chainId: id, nonce, gas, fees, transfer });
    },
    async broadcast(order, signed) {
      const outcome = await broadcastSigned(client, signed);
      // Never taken: its nonce goes to the next payout (a new prepare for this key gets a new one).
      if (outcome.kind === 'rejected') await nonces.release(order.key);
      return outcome;
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
