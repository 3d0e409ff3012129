/**
 * Deposit addresses: integrated addresses of the service's wallet (make_integrated_address), one 8-byte
 * payment id per request. The payment id is derived from the request key (the first 8 bytes of
 * sha256(domain tag, wallet address, key)), so a retry gets the same address, and an outsider who knows a key
 * cannot guess another's (keys are random UUID-based). No memo: the payment id is inside the address.
 *
 * The watcher matches by payment id: it rebuilds the integrated address of a payment id locally
 * (integratedAddressOf), and the source checks that the wallet's answer is exactly that address, so both
 * always agree.
 */
import { createHash } from 'node:crypto';
import { decodeZanoAddress, encodeZanoAddress, ZANO_ADDRESS_TAGS } from '../../domain/zano-address.js';
import type { AddressSource } from '../chain.js';
import type { AssetBook } from './assets.js';
import type { ZanoRpcClient } from './rpc.js';

const DOMAIN_TAG = 'partner-swap-service/zano-deposit-payment-id/v1';

/** The payment id (16 hex digits) of `key` for the wallet at `walletAddress`; never all zeros (that is "none"). */
export function depositPaymentId(walletAddress: string, key: string): string {
  for (let attempt = 0; ; attempt++) {
    const digest = createHash('sha256')
      .update(`${DOMAIN_TAG}\0${walletAddress}\0${key}${attempt ? `\0${attempt}` : ''}`)
      .digest();
    const pid = digest.subarray(0, 8);
    if (pid.some((byte) => byte !== 0)) return pid.toString('hex');
  }
}

/** The integrated address of standard address `walletAddress` with payment id `paymentId` (hex), as the wallet builds it. */
export function integratedAddressOf(walletAddress: string, paymentId: string): string {
  const decoded = decodeZanoAddress(walletAddress);
  const keys = Buffer.concat([decoded.spendPublicKey, decoded.viewPublicKey]);
  const pid = Buffer.from(paymentId, 'hex');
  // get_account_address_as_str: no flags, the old tag; flags, the v2 tag (or the auditable one) with the flags byte.
  if (decoded.flags === undefined || decoded.flags === 0) {
    return encodeZanoAddress(ZANO_ADDRESS_TAGS.integrated, Buffer.concat([keys, pid]));
  }
  const tag = decoded.flags & 1 ? ZANO_ADDRESS_TAGS.auditableIntegrated : ZANO_ADDRESS_TAGS.integratedV2;
  return encodeZanoAddress(tag, Buffer.concat([keys, Buffer.of(decoded.flags), pid]));
}

/** The wallet's own (standard) address, read once. */
export function createWalletAddress(rpc: ZanoRpcClient): () => Promise<string> {
  let address: Promise<string> | undefined;
  return () => {
    address ??= rpc.call<{ address: string }>('getaddress').then(({ address: text }) => {
      const decoded = decodeZanoAddress(text);
      if (decoded.paymentId) throw new Error(`getaddress answered an integrated address: ${text}`);
      return text;
    });
    address.catch(() => (address = undefined));
    return address;
  };
}

/** The address source of `network` over the wallet behind `rpc`. */
export function createZanoAddressSource(deps: {
  network: string;
  rpc: ZanoRpcClient;
  assets: AssetBook;
  walletAddress: () => Promise<string>;
}): AddressSource {
  return {
    async depositAddress(asset, request) {
      if (asset.network !== deps.network)
        throw new Error(`the ${deps.network} address source was asked for ${asset.symbol}/${asset.network}`);
      // An asset deposits are taken in is on the wallet's whitelist before the first is paid (once per process).
      await deps.assets.whitelist(deps.assets.bySymbol(asset.symbol));
      const wallet = await deps.walletAddress();
      const paymentId = depositPaymentId(wallet, request.key);
      const answer = await deps.rpc.call<{ integrated_address: string; payment_id: string }>('make_integrated_address', {
        payment_id: paymentId,
      });
      const expected = integratedAddressOf(wallet, paymentId);
      if (answer.integrated_address !== expected || answer.payment_id.toLowerCase() !== paymentId) {
        throw new Error(`make_integrated_address answered ${answer.integrated_address} for payment id ${paymentId}; expected ${expected}`);
      }
      return { address: answer.integrated_address, memo: null };
    },
  };
}
