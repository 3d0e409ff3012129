/**
 * Loads the catalogue: the data file (catalog.json beside this module: assets, prices, limits, fees, and which
 * networks are listed with their payout cost) joined with each network's facts from the table of networks
 * (server/networks/: code, name, confirmations, block time, memo), then validated.
 */
import fs from 'node:fs';
import { validateCatalog, type Catalog } from '../../domain/catalog.js';
import { networkFacts } from '../../networks/index.js';

/** Reads and validates the catalogue; throws with every problem listed when the data is wrong. */
export function loadSandboxCatalog(file = new URL('./catalog.json', import.meta.url)): Catalog {
  return validateCatalog(withNetworkFacts(JSON.parse(fs.readFileSync(file, 'utf8'))));
}

/** The catalogue data `raw` with each listed network's facts from the table; throws for a network the table lacks. */
export function withNetworkFacts(raw: {
  networks?: Record<string, { payoutFeeUsd: string }>;
  assets?: Array<{ network: string }>;
}): unknown {
  if (!raw || typeof raw !== 'object' || typeof raw.networks !== 'object' || !Array.isArray(raw.assets)) return raw;
  const unknown = Object.keys(raw.networks).filter((id) => !networkFacts(id));
  if (unknown.length > 0) {
    throw new Error(`Invalid catalogue:\n  networks ${unknown.join(', ')} are not in the table of networks (server/networks/index.ts)`);
  }
  const networks = Object.fromEntries(
    Object.entries(raw.networks).map(([id, listed]) => {
      const facts = networkFacts(id)!;
      const { code, name, confirmations, blockSeconds } = facts;
      return [id, { code, name, confirmations, blockSeconds, payoutFeeUsd: listed.payoutFeeUsd }];
    }),
  );
  const assets = raw.assets.map((asset) => {
    const memo = networkFacts(asset.network)?.memo;
    return memo ? { ...asset, memoNeeded: true, memoName: memo.name } : asset;
  });
  return { ...raw, networks, assets };
}
