import { expect } from 'chai';
import { destinationGuidance, findAsset, validateCatalog, type Catalog } from '../../../server/domain/catalog.js';
import { toAmount } from '../../../server/domain/money.js';

function catalog(): Catalog {
  return {
    limitsUsd: { minimum: '20', maximum: '100000', automaticMaximum: '25000' },
    fees: { fixedPercent: '1', floatingPercent: '0.5', floatingSlippagePercent: '1.5' },
    routes: { feePercent: '1', feeFloorUsd: '1', minSwapUsd: '25', maxAutoSwapUsd: '10000' },
    payoutMinutes: 5,
    networks: {
      BTC: { code: 'bitcoin', name: 'Bitcoin', confirmations: 2, blockSeconds: 600, payoutFeeUsd: '2' },
      ZANO: { code: 'zano', name: 'Zano', confirmations: 10, blockSeconds: 60, payoutFeeUsd: '0.05' },
    },
    assets: [
      {
        symbol: 'BTC',
        name: 'Bitcoin',
        network: 'BTC',
        precision: 8,
        priceUsd: '60000',
        driftPercent: '0',
        dustFloor: '0.00000546',
        fixedRate: true,
      },
      {
        symbol: 'ZANO',
        name: 'Zano',
        network: 'ZANO',
        precision: 12,
        priceUsd: '1',
        driftPercent: '0',
        dustFloor: '0.01',
        fixedRate: false,
      },
    ],
  };
}

describe('catalog', () => {
  describe('validateCatalog(data)', () => {
    it('accepts a well-formed catalogue', () => {
      expect(validateCatalog(catalog()).assets).to.have.length(2);
    });
    it('lists each problem: unknown network, duplicate, bad price', () => {
      const data = catalog();
      data.assets.push({ ...data.assets[0] }, { ...data.assets[0], symbol: 'ETH', network: 'ETH', priceUsd: '1e3' });
      expect(() => validateCatalog(data)).to.throw(/listed twice[\s\S]*unknown network[\s\S]*priceUsd must be a decimal string/);
    });
  });

  describe('destinationGuidance(catalog, source, price)', () => {
    it('converts USD limits into the source asset, minimum rounded up and maximum rounded down', () => {
      const data = catalog();
      const guidance = destinationGuidance(data, findAsset(data, 'BTC', 'BTC')!, toAmount('60000'));
      expect(guidance.destinations).to.have.length(1);
      // 20 / 60000 = 0.000333333.. -> up to 8 places; 100000 / 60000 = 1.6666666.. -> down.
      expect(guidance.destinations[0]).to.include({ minimumSourceAmount: '0.00033334', maximumSourceAmount: '1.66666666' });
      expect(guidance.destinations[0].rateTypes).to.deep.equal(['floating']);
      expect(guidance.destinations[0].estimatedMinutes).to.equal(25);
    });
  });
});
