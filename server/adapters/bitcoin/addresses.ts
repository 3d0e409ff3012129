/**
 * The address source: BIP84 deposit addresses at `0/<index>` below the account key, each imported into the
 * node's watch-only wallet (importmulti, a `wpkh(<public key>)` descriptor, no rescan) before it is given
 * out, so the node watches it ahead of any payment. The change address `1/0` is imported the same way,
 * marked internal (the wallet then lists it as change, never as a payment received).
 */
import type { AddressSource } from '../chain.js';
import type { AccountKey } from './keys.js';
import type { RpcClient } from './rpc.js';

/** Makes sure the watch-only wallet watches an address; idempotent, and one RPC call for an address already watched. */
export type WatchImporter = (key: { publicKey: Uint8Array; address: string }, options?: { internal?: boolean }) => Promise<void>;

/** An importer into the watch-only wallet behind `rpc`. */
export function createWatchImporter(rpc: RpcClient): WatchImporter {
  // Addresses known watched (by this process), and imports under way (two requests for one address share one).
  const watched = new Set<string>();
  const importing = new Map<string, Promise<void>>();

  async function importOnce(publicKey: Uint8Array, address: string, internal: boolean): Promise<void> {
    const info = await rpc.call<{ ismine?: boolean; iswatchonly?: boolean }>('getaddressinfo', [address]);
    if (info.iswatchonly || info.ismine) return;
    const { descriptor } = await rpc.call<{ descriptor: string }>('getdescriptorinfo', [`wpkh(${Buffer.from(publicKey).toString('hex')})`]);
    // timestamp "now": a fresh address has no history to rescan for.
    const request: Record<string, unknown> = { desc: descriptor, timestamp: 'now', watchonly: true, internal };
    if (!internal) request.label = '';
    const [result] = await rpc.call<Array<{ success: boolean; error?: { code: number; message: string } }>>('importmulti', [
      [request],
      { rescan: false },
    ]);
    if (!result?.success) throw new Error(`importmulti of ${address} failed: ${result?.error?.message ?? 'no result'}`);
  }

  return async ({ publicKey, address }, options = {}) => {
    if (watched.has(address)) return;
    let pending = importing.get(address);
    if (!pending) {
      pending = importOnce(publicKey, address, options.internal ?? false).finally(() => importing.delete(address));
      importing.set(address, pending);
    }
    await pending;
    watched.add(address);
  };
}

/** The address source of `network` over `account`, importing through `importer`. */
export function createAddressSource(deps: { network: string; account: AccountKey; importer: WatchImporter }): AddressSource {
  return {
    async depositAddress(asset, request) {
      if (asset.network !== deps.network)
        throw new Error(`the ${deps.network} address source was asked for ${asset.symbol}/${asset.network}`);
      const derived = deps.account.derive(0, await request.index());
      await deps.importer(derived);
      return { address: derived.address, memo: null };
    },
  };
}
