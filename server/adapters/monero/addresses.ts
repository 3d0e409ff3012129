/**
 * Deposit addresses: integrated addresses of the service's view-only wallet (make_integrated_address), one
 * 8-byte payment id per request, derived from the request key (the first 8 bytes of sha256(domain tag, wallet
 * address, key)) so a retry gets the same address and no one who knows a key can guess another's. No memo: the
 * payment id is inside the address. The source checks that the wallet built exactly the address computed here
 * (domain/monero-address.ts), so the watcher, which matches payments by payment id, always agrees with it.
 */
import { createHash } from 'node:crypto';
import { decodeMoneroAddress, moneroIntegratedAddress } from '../../domain/monero-address.js';
import type { AddressSource } from '../chain.js';
import type { MoneroRpcClient } from './rpc.js';

const DOMAIN_TAG = 'partner-swap-service/monero-deposit-payment-id/v1';
/** The payment id of a payment to the wallet's own address: none. */
export const NO_PAYMENT_ID = '0000000000000000';

/** The payment id (16 hex digits) of `key` for the wallet at `walletAddress`; never all zeros (that is "none"). */
export function moneroPaymentId(walletAddress: string, key: string): string {
  for (let attempt = 0; ; attempt++) {
    const digest = createHash('sha256')
      .update(`${DOMAIN_TAG}\0${walletAddress}\0${key}${attempt ? `\0${attempt}` : ''}`)
      .digest();
    const pid = digest.subarray(0, 8).toString('hex');
    if (pid !== NO_PAYMENT_ID) return pid;
  }
}

/** The wallet's primary (standard) address, read once. */
export function createMoneroWalletAddress(rpc: MoneroRpcClient): () => Promise<string> {
  let address: Promise<string> | undefined;
  return () => {
    address ??= rpc.call<{ address: string }>('get_address', { account_index: 0 }).then(({ address: text }) => {
      if (decodeMoneroAddress(text).kind !== 'standard') throw new Error(`get_address answered ${text}, not a standard address`);
      return text;
    });
    address.catch(() => (address = undefined));
    return address;
  };
}

/** The address source of `network` over the view-only wallet behind `rpc`. */
export function createMoneroAddressSource(deps: {
  network: string;
  rpc: MoneroRpcClient;
  walletAddress: () => Promise<string>;
}): AddressSource {
  return {
    async depositAddress(asset, request) {
      if (asset.network !== deps.network)
        throw new Error(`the ${deps.network} address source was asked for ${asset.symbol}/${asset.network}`);
      const wallet = await deps.walletAddress();
      const paymentId = moneroPaymentId(wallet, request.key);
      const answer = await deps.rpc.call<{ integrated_address: string; payment_id: string }>('make_integrated_address', {
        payment_id: paymentId,
      });
      const expected = moneroIntegratedAddress(wallet, paymentId);
      if (answer.integrated_address !== expected || answer.payment_id.toLowerCase() !== paymentId) {
        throw new Error(`make_integrated_address answered ${answer.integrated_address} for payment id ${paymentId}; expected ${expected}`);
      }
      return { address: expected, memo: null };
    },
  };
}
