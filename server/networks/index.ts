/**
 * The table of networks: each network's facts, written once in its family's module (bitcoin.ts, evm.ts,
 * zano.ts, monero.ts, and the sandbox-only tron.ts, solana.ts, xrp.ts, ton.ts). The catalogue
 * (adapters/sandbox/catalog.ts), the address checks (domain/addresses.ts), production configuration
 * (production-config.ts), the request rules (handlers/request-rules.ts) and the market pairs
 * (adapters/market/pairs.ts) all read it. Pure: no I/O, so domain/ may read it too.
 *
 * A network listed for production has a family whose adapters server/wiring.ts builds; one that production
 * cannot serve says so (`sandbox-only`, with the reason), and NETWORKS naming it is refused.
 */
import { BTC, DOGE, LTC } from './bitcoin.js';
import { BSC, ETH } from './evm.js';
import { XMR } from './monero.js';
import type { FamilyName, NetworkFacts, ProductionFamily } from './network.js';
import { SOL } from './solana.js';
import { TON } from './ton.js';
import { TRX } from './tron.js';
import { XRP } from './xrp.js';
import { ZANO } from './zano.js';

export type * from './network.js';

/** Every network, by id; production's first, family by family. */
export const NETWORKS: Readonly<Record<string, NetworkFacts>> = Object.freeze(
  Object.fromEntries([BTC, LTC, DOGE, ETH, BSC, ZANO, XMR, TRX, SOL, XRP, TON].map((facts) => [facts.id, facts])),
);

/** The facts of `network`, or undefined for an unknown one (a plain lookup: `__proto__` is no network). */
export function networkFacts(network: string): NetworkFacts | undefined {
  return Object.hasOwn(NETWORKS, network) ? NETWORKS[network] : undefined;
}

/** The facts of `network`; throws for an unknown one. */
export function requireNetwork(network: string): NetworkFacts {
  const facts = networkFacts(network);
  if (!facts) throw new RangeError(`Unknown network ${JSON.stringify(network)}`);
  return facts;
}

/** The coin that pays `network`'s fees (`BNB` on BSC), or undefined for an unknown network. */
export function nativeCoinOf(network: string): string | undefined {
  return networkFacts(network)?.nativeCoin;
}

/** Whether `network`'s payments show a sender a refund could trust (false on Zano and Monero, and unknown networks). */
export function senderKnownOn(network: string): boolean {
  return networkFacts(network)?.senderKnown ?? false;
}

/** The production family of `network`, or undefined when production cannot serve it. */
export function productionFamilyOf(network: string): ProductionFamily | undefined {
  const production = networkFacts(network)?.production;
  return production?.kind === 'family' ? production.family : undefined;
}

/** The networks production can serve, in the table's order. */
export const PRODUCTION_NETWORKS: readonly string[] = Object.values(NETWORKS)
  .filter((facts) => facts.production.kind === 'family')
  .map((facts) => facts.id);

/** The networks served by the sandbox only, each with the reason production cannot serve it. */
export const SANDBOX_ONLY_NETWORKS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(NETWORKS).flatMap((facts) => (facts.production.kind === 'sandbox-only' ? [[facts.id, facts.production.why]] : [])),
);

/** The production families, each once. */
export const PRODUCTION_FAMILIES: Readonly<Record<FamilyName, ProductionFamily>> = Object.fromEntries(
  Object.values(NETWORKS).flatMap((facts) =>
    facts.production.kind === 'family' ? [[facts.production.family.family, facts.production.family]] : [],
  ),
) as Record<FamilyName, ProductionFamily>;
