/** Catalog operations: the asset list and pair guidance. Public and read-only. */
import { compactPairGuidance, destinationGuidance, findAsset, toAssetCatalog } from '../domain/catalog.js';
import { AppError, invalidRequest } from '../domain/errors.js';
import { fixedBody, type Handlers } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

/** Handlers for listAssets and getPairs. */
export function createCatalogHandlers(deps: HandlerDeps): Pick<Handlers, 'listAssets' | 'getPairs'> {
  // The catalogue is static for the life of the process; build its views once.
  const assetCatalog = fixedBody(toAssetCatalog(deps.catalog));
  const compact = fixedBody(compactPairGuidance(deps.catalog));

  return {
    async listAssets() {
      return { status: 200, body: assetCatalog };
    },

    async getPairs({ query }) {
      const { sourceAsset, sourceNetwork } = query;
      if (sourceAsset === undefined && sourceNetwork === undefined) return { status: 200, body: compact };
      if (sourceAsset === undefined || sourceNetwork === undefined) {
        throw invalidRequest('Give sourceAsset and sourceNetwork together (or neither, for compact guidance).', {
          missing: sourceAsset === undefined ? 'sourceAsset' : 'sourceNetwork',
        });
      }
      const source = findAsset(deps.catalog, sourceAsset, sourceNetwork);
      if (!source) {
        throw invalidRequest(`${sourceAsset} on network ${sourceNetwork} is not a supported source; GET /assets lists them.`, {
          sourceAsset,
          sourceNetwork,
        });
      }
      let price;
      try {
        price = await deps.rates.priceUsd(source.symbol, source.network, deps.now());
      } catch (err) {
        if (err instanceof AppError) throw err;
        throw new AppError(503, 'service_unavailable', 'Prices are temporarily unavailable; retry shortly.', undefined, { cause: err });
      }
      return { status: 200, body: destinationGuidance(deps.catalog, source, price) };
    },
  };
}
