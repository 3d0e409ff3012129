/**
 * The assets a Zano wallet pays and receives here: the native coin and confidential assets (fUSD), each by its
 * asset id, with the decimals amounts are converted with. Amounts are decimal strings in the core and atomic
 * bigints at the RPC; never JS numbers.
 */
import type { ZanoRpcClient } from './rpc.js';

/** The native coin's asset id (zano-docs multi-assets-custody-guide.md). */
export const ZANO_NATIVE_ASSET_ID = 'd6329b5b1f7c0805b5c345f4957554002a2f557845f64d7645dae0e051a6498a';
/** fUSD (Freedom Dollar), hyle-team/zano governance/governance.md ZAP2. */
export const FUSD_ASSET_ID = '86143388bd056a8f0bab669f78f14873fac8e2dd8d57898cdb725a2d5e2e4f8f';

/** An asset as the adapter knows it. */
export interface ZanoAsset {
  symbol: string;
  assetId: string;
  decimals: number;
}

/** The default book: ZANO (12 decimals) and fUSD (4: the catalogue's precision). */
export const DEFAULT_ZANO_ASSETS: ZanoAsset[] = [
  { symbol: 'ZANO', assetId: ZANO_NATIVE_ASSET_ID, decimals: 12 },
  { symbol: 'fUSD', assetId: FUSD_ASSET_ID, decimals: 4 },
];

/** Atomic units to a plain decimal string (no trailing zeros). */
export function formatAtomic(amount: bigint, decimals: number): string {
  const negative = amount < 0n;
  const abs = negative ? -amount : amount;
  const unit = 10n ** BigInt(decimals);
  const whole = abs / unit;
  const fraction = (abs % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** A positive decimal string to atomic units; throws when it has more decimals than the asset. */
export function parseAtomic(amount: string, decimals: number): bigint {
  const match = /^(\d+)(?:\.(\d*))?$/.exec(amount.trim());
  if (!match) throw new Error(`not a non-negative decimal amount: ${JSON.stringify(amount)}`);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) throw new Error(`${amount} has more than ${decimals} decimals`);
  return BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

/** The adapter's assets by symbol and by asset id, and the wallet's whitelist. */
export interface AssetBook {
  bySymbol(symbol: string): ZanoAsset;
  byId(assetId: string): ZanoAsset | undefined;
  readonly native: ZanoAsset;
  /** Makes sure the wallet lists `asset` (assets_whitelist_add, once per process; the native coin needs none). */
  whitelist(asset: ZanoAsset): Promise<void>;
}

export function createAssetBook(rpc: ZanoRpcClient, assets: ZanoAsset[]): AssetBook {
  const bySymbol = new Map(assets.map((asset) => [asset.symbol, { ...asset, assetId: asset.assetId.toLowerCase() }]));
  const byId = new Map([...bySymbol.values()].map((asset) => [asset.assetId, asset]));
  const native = byId.get(ZANO_NATIVE_ASSET_ID);
  if (!native) throw new Error('the Zano asset book needs the native coin');
  const whitelisted = new Map<string, Promise<void>>();
  return {
    native,
    bySymbol(symbol) {
      const asset = bySymbol.get(symbol);
      if (!asset) throw new Error(`the Zano adapter has no asset ${symbol}`);
      return asset;
    },
    byId: (assetId) => byId.get(assetId.toLowerCase()),
    whitelist(asset) {
      if (asset.assetId === ZANO_NATIVE_ASSET_ID) return Promise.resolve();
      let pending = whitelisted.get(asset.assetId);
      if (!pending) {
        pending = (async () => {
          // Adding an asset already on the list answers OK again: idempotent.
          const answer = await rpc.call<{ status?: string; asset_descriptor?: { decimal_point?: bigint } }>('assets_whitelist_add', {
            asset_id: asset.assetId,
          });
          if (answer.status !== 'OK') throw new Error(`assets_whitelist_add ${asset.symbol} (${asset.assetId}): status ${answer.status}`);
          const decimals = answer.asset_descriptor?.decimal_point;
          if (decimals !== undefined && Number(decimals) !== asset.decimals) {
            throw new Error(`the wallet says ${asset.symbol} has ${decimals} decimals, the adapter is configured with ${asset.decimals}`);
          }
        })();
        whitelisted.set(asset.assetId, pending);
        pending.catch(() => whitelisted.delete(asset.assetId));
      }
      return pending;
    },
  };
}
