/**
 * The catalogue of assets and networks and the guidance derived from it: which pairs exist, which rate
 * types they offer and their limits in the source asset. Pure: prices are passed in.
 */
import type { components } from '../../generated/api.js';
import { formatDown, formatUp, toAmount, type Amount } from './money.js';

type AssetCatalogBody = components['schemas']['AssetCatalog'];
type CompactPairGuidance = components['schemas']['CompactPairGuidance'];
type DestinationGuidance = components['schemas']['DestinationGuidance'];

/** One asset on one network, as the catalogue data describes it. */
export interface CatalogAsset {
  symbol: string;
  name: string;
  network: string;
  /** Decimal places of the asset's smallest unit. */
  precision: number;
  /** Reference USD price (sandbox rates drift around it). */
  priceUsd: string;
  /** Amplitude of the sandbox price drift, in percent. */
  driftPercent: string;
  /**
   * Permanent-route dust floor, in units of the asset: a route payment below it (times ROUTE_DUST_FLOOR_FACTOR)
   * is recorded but never valued, accumulated or announced, since each would cost more to handle than it is worth.
   */
  dustFloor: string;
  /** Whether the asset can take part in fixed-rate swaps. */
  fixedRate: boolean;
  memoNeeded?: boolean;
  memoName?: string;
  /** Set by production on a Bitcoin-family test chain or regtest (`<NET>_CHAIN`): its addresses are that chain's. */
  chain?: 'test' | 'regtest';
}

/** A network: its provider code, display name and confirmation policy. */
export interface CatalogNetwork {
  code: string;
  name: string;
  confirmations: number;
  blockSeconds: number;
  /** What a payout on this network costs, in USD; taken from the receive amount. */
  payoutFeeUsd: string;
}

/** Service fees, in percent of the deposit's USD value, and the slippage bound of floating quotes. */
export interface CatalogFees {
  fixedPercent: string;
  floatingPercent: string;
  /** How far below the quoted amount a floating swap may pay out (`minimumReceiveAmount`). */
  floatingSlippagePercent: string;
}

/** Terms of new permanent routes (the partner's markup is added to `feePercent`). */
export interface CatalogRouteTerms {
  feePercent: string;
  feeFloorUsd: string;
  /** Deposits accumulate per asset until they are worth this much, then convert together. */
  minSwapUsd: string;
  /** A deposit worth more than this goes to manual review. */
  maxAutoSwapUsd: string;
}

/** The whole catalogue. */
export interface Catalog {
  /** Quote limits, and the largest deposit processed without manual review (`automaticMaximum`). */
  limitsUsd: { minimum: string; maximum: string; automaticMaximum: string };
  fees: CatalogFees;
  routes: CatalogRouteTerms;
  /** Minutes from an exchanged amount to its payout transaction. */
  payoutMinutes: number;
  networks: Record<string, CatalogNetwork>;
  assets: CatalogAsset[];
}

/** Checks catalogue data and returns it typed; throws an Error listing every problem found. */
export function validateCatalog(raw: unknown): Catalog {
  const problems: string[] = [];
  const data = raw as Catalog;
  if (!data || typeof data !== 'object' || !Array.isArray(data.assets) || typeof data.networks !== 'object') {
    throw new Error('Catalogue must be an object with "networks" and "assets"');
  }
  const decimal = (value: unknown, where: string) => {
    if (typeof value !== 'string' || !/^\d+(\.\d+)?$/.test(value)) problems.push(`${where} must be a decimal string`);
  };
  decimal(data.limitsUsd?.minimum, 'limitsUsd.minimum');
  decimal(data.limitsUsd?.maximum, 'limitsUsd.maximum');
  decimal(data.limitsUsd?.automaticMaximum, 'limitsUsd.automaticMaximum');
  decimal(data.fees?.fixedPercent, 'fees.fixedPercent');
  decimal(data.fees?.floatingPercent, 'fees.floatingPercent');
  decimal(data.fees?.floatingSlippagePercent, 'fees.floatingSlippagePercent');
  for (const field of ['feePercent', 'feeFloorUsd', 'minSwapUsd', 'maxAutoSwapUsd'] as const)
    decimal(data.routes?.[field], `routes.${field}`);
  for (const [id, network] of Object.entries(data.networks)) {
    if (!/^[A-Z0-9]{2,10}$/.test(id)) problems.push(`network id ${id} must be 2-10 upper-case letters or digits`);
    if (!Number.isInteger(network.confirmations) || network.confirmations < 1)
      problems.push(`network ${id}: confirmations must be a positive integer`);
    if (!(network.blockSeconds > 0)) problems.push(`network ${id}: blockSeconds must be positive`);
    decimal(network.payoutFeeUsd, `network ${id}: payoutFeeUsd`);
  }
  const seen = new Set<string>();
  for (const asset of data.assets) {
    const where = `asset ${asset.symbol}/${asset.network}`;
    if (!/^[A-Za-z0-9]{2,10}$/.test(asset.symbol)) problems.push(`${where}: symbol must be 2-10 letters or digits`);
    if (!data.networks[asset.network]) problems.push(`${where}: unknown network`);
    if (seen.has(assetKey(asset))) problems.push(`${where}: listed twice`);
    seen.add(assetKey(asset));
    if (!Number.isInteger(asset.precision) || asset.precision < 0 || asset.precision > 18)
      problems.push(`${where}: precision must be 0-18`);
    decimal(asset.priceUsd, `${where}: priceUsd`);
    decimal(asset.driftPercent, `${where}: driftPercent`);
    decimal(asset.dustFloor, `${where}: dustFloor`);
  }
  if (problems.length > 0) throw new Error(`Invalid catalogue:\n  ${problems.join('\n  ')}`);
  return data;
}

/** The identity of an asset on a network, e.g. "USDT/TRX". */
export function assetKey(asset: { symbol: string; network: string }): string {
  return `${asset.symbol}/${asset.network}`;
}

/** The network of an asset key, e.g. "TRX" of "USDT/TRX" (symbols have no slash: validateCatalog). */
export function assetNetwork(key: string): string {
  return key.slice(key.indexOf('/') + 1);
}

/** Looks an asset up by symbol and network (both case-sensitive, as the catalogue lists them). */
export function findAsset(catalog: Catalog, symbol: string, network: string): CatalogAsset | undefined {
  return catalog.assets.find((a) => a.symbol === symbol && a.network === network);
}

/** The public AssetCatalog body. */
export function toAssetCatalog(catalog: Catalog): AssetCatalogBody {
  return {
    currencyCount: new Set(catalog.assets.map((a) => a.symbol)).size,
    assetNetworkCount: catalog.assets.length,
    assets: catalog.assets.map((asset) => ({
      symbol: asset.symbol,
      name: asset.name,
      network: asset.network,
      networkCode: catalog.networks[asset.network].code,
      icon: monogramIcon(asset.symbol),
      ...(asset.memoNeeded ? { memoNeeded: true, memoName: asset.memoName ?? 'Memo' } : { memoNeeded: false }),
    })),
  };
}

/** Every source with the destinations it can be swapped to. */
export function compactPairGuidance(catalog: Catalog): CompactPairGuidance {
  const sources = catalog.assets.map((source) => ({
    asset: source.symbol,
    network: source.network,
    destinations: destinationsOf(catalog, source).map(assetKey),
  }));
  return {
    kind: 'compact',
    sourceCount: sources.length,
    pairCount: sources.reduce((sum, s) => sum + s.destinations.length, 0),
    sources,
  };
}

/** Destinations of one source with rate types and limits converted into the source asset at `sourcePriceUsd`. */
export function destinationGuidance(catalog: Catalog, source: CatalogAsset, sourcePriceUsd: Amount): DestinationGuidance {
  const minimumUsd = toAmount(catalog.limitsUsd.minimum);
  const maximumUsd = toAmount(catalog.limitsUsd.maximum);
  return {
    kind: 'destinations',
    source: { asset: source.symbol, network: source.network },
    destinations: destinationsOf(catalog, source).map((destination) => ({
      asset: destination.symbol,
      network: destination.network,
      rateTypes: source.fixedRate && destination.fixedRate ? ['fixed', 'floating'] : ['floating'],
      minimumSourceAmount: formatUp(minimumUsd.div(sourcePriceUsd), source.precision),
      maximumSourceAmount: formatDown(maximumUsd.div(sourcePriceUsd), source.precision),
      minimumUsd: minimumUsd.toFixed(),
      maximumUsd: maximumUsd.toFixed(),
      estimatedMinutes: estimatedMinutes(catalog, source),
    })),
  };
}

/** Minutes from a deposit's broadcast to the payout: the source's confirmations plus the payout time. */
export function estimatedMinutes(catalog: Catalog, source: CatalogAsset): number {
  const network = catalog.networks[source.network];
  return Math.ceil((network.confirmations * network.blockSeconds) / 60) + catalog.payoutMinutes;
}

function destinationsOf(catalog: Catalog, source: CatalogAsset): CatalogAsset[] {
  return catalog.assets.filter((a) => assetKey(a) !== assetKey(source));
}

// A self-contained SVG monogram, so icons render without depending on a host that may not exist.
function monogramIcon(symbol: string): string {
  const hue = [...symbol].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) % 360, 7);
  const label = symbol.slice(0, 4).replace(/[^A-Za-z0-9]/g, '');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">` +
    `<circle cx="32" cy="32" r="32" fill="hsl(${hue},55%,45%)"/>` +
    `<text x="32" y="38" font-family="sans-serif" font-size="${label.length > 3 ? 14 : 18}" fill="#fff" text-anchor="middle">${label}</text></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}
