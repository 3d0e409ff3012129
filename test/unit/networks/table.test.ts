import { HDKey } from '@scure/bip32';
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import pino from 'pino';
import { MARKET_PAIRS, MARKET_SOURCES } from '../../../server/adapters/market/pairs.js';
import { loadSandboxCatalog } from '../../../server/adapters/sandbox/catalog.js';
import { validateAddress } from '../../../server/domain/addresses.js';
import {
  NETWORKS,
  PRODUCTION_FAMILIES,
  PRODUCTION_NETWORKS,
  SANDBOX_ONLY_NETWORKS,
  type ConfigVariable,
  type VariableContext,
} from '../../../server/networks/index.js';
import { readProductionConfig, servedCatalog } from '../../../server/production-config.js';
import { createProductionChainAdapters } from '../../../server/wiring.js';

const catalog = loadSandboxCatalog();
const seed = new Uint8Array(32).map((_, i) => (i * 13 + 5) & 0xff);

/**
 * A value each variable's check must refuse, by suffix: a variable added to a family without one here fails
 * the table test, so every variable comes with a check that refuses something.
 */
const BAD_VALUES: Record<string, string> = {
  RPC_URL: 'localhost:8332',
  SIGNER_RPC_URL: 'ftp://127.0.0.1/',
  XPUB: 'xpub-0OIl',
  CHAIN: 'mainnet',
  CONFIRMATIONS: '0',
  MAX_TIP_AGE_SECONDS: 'ten',
  SCAN_SECONDS: '-1',
  HOLD_UNMINED_SECONDS: '0',
  FALLBACK_FEE_RATE: '1e-4',
  REPLACE_AFTER_SECONDS: '0',
  MAX_FEE_RATE: '0',
  PAYOUT_BATCH_SECONDS: '1.5',
  PAYOUT_BATCH_MAX: '501',
  COLD_ADDRESS: 'not an address',
  HOT_WALLET_KEY_FILE: 'key\nfile',
  DEPOSIT_KEY_FILE: 'key\0file',
  TOKENS: 'USDT:0x123',
  CHAIN_ID: '0',
  MAX_FEE_GWEI: '0.0',
  FUSD_ASSET_ID: 'fUSD',
};

const contextOf = (network: string): VariableContext => ({
  network,
  sibling: () => undefined,
  addressProblem: (address) => {
    const check = validateAddress(network, address);
    return check.ok ? undefined : check.reason;
  },
});

describe('the table of networks (server/networks/)', () => {
  describe('every catalogue network has every fact', () => {
    for (const id of Object.keys(catalog.networks)) {
      it(`${id}`, () => {
        const facts = NETWORKS[id];
        expect(facts, `${id} is not in the table`).to.not.equal(undefined);
        expect(facts.id).to.equal(id);
        expect(facts.code).to.match(/^[A-Z0-9]{2,10}$/);
        expect(facts.name).to.be.a('string').and.not.equal('');
        // The native coin is an asset of the catalogue on this network.
        expect(
          catalog.assets.some((a) => a.network === id && a.symbol === facts.nativeCoin),
          facts.nativeCoin,
        ).to.equal(true);
        // Its sandbox addresses pass its own check, and its hashes are in the notation the API allows.
        expect(facts.address.label).to.be.a('string').and.not.equal('');
        expect(validateAddress(id, facts.address.sandboxAddress(seed)).ok).to.equal(true);
        expect(facts.address.sandboxTxHash(seed)).to.match(/^[A-Za-z0-9x]{1,128}$/);
        for (const format of Object.values(facts.testChains ?? {})) expect(format.check(format.sandboxAddress(seed))).to.equal(undefined);
        if (facts.memo) {
          expect(facts.memo.name).to.not.equal('');
          expect(facts.memo.check(facts.memo.sandbox(seed))).to.equal(undefined);
        }
        expect(facts.senderKnown).to.be.a('boolean');
        expect(Number.isInteger(facts.confirmations) && facts.confirmations >= 1).to.equal(true);
        expect(facts.blockSeconds).to.be.greaterThan(0);
        expect(facts.chains).to.have.property('main');
        for (const chain of Object.values(facts.chains)) expect(chain.name).to.match(new RegExp(`^${id} `));
        for (const source of Object.keys(facts.markets)) expect(MARKET_SOURCES).to.include(source);
        if (Object.keys(facts.markets).length > 0) expect(MARKET_PAIRS[facts.nativeCoin]).to.deep.equal(facts.markets);
        if (facts.production.kind === 'sandbox-only') expect(facts.production.why).to.have.length.greaterThan(20);
        else expect(PRODUCTION_FAMILIES[facts.production.family.family]).to.equal(facts.production.family);
        // The catalogue shows the table's facts.
        expect(catalog.networks[id]).to.include({
          code: facts.code,
          name: facts.name,
          confirmations: facts.confirmations,
          blockSeconds: facts.blockSeconds,
        });
      });
    }

    it('lists no network the catalogue does not (a network in the table is one the service offers)', () => {
      expect(Object.keys(NETWORKS)).to.have.members(Object.keys(catalog.networks));
    });

    it('says which networks are sandbox-only: DOGE, TRX, SOL, XRP and TON', () => {
      expect(Object.keys(SANDBOX_ONLY_NETWORKS)).to.have.members(['DOGE', 'TRX', 'SOL', 'XRP', 'TON']);
      expect(SANDBOX_ONLY_NETWORKS.DOGE).to.match(/Dogecoin Core lacks the PSBT, descriptor and getbalances calls/);
      expect(PRODUCTION_NETWORKS).to.deep.equal(['BTC', 'LTC', 'ETH', 'BSC', 'ZANO', 'XMR']);
    });

    it('knows the sender of a payment everywhere but on ZANO and XMR', () => {
      expect(
        Object.values(NETWORKS)
          .filter((facts) => !facts.senderKnown)
          .map((facts) => facts.id),
      ).to.have.members(['ZANO', 'XMR']);
    });
  });

  describe('every production family has every configuration variable, each with a check', () => {
    for (const family of Object.values(PRODUCTION_FAMILIES)) {
      it(`${family.family}`, () => {
        const suffixes = family.variables.map((v: ConfigVariable) => v.suffix);
        expect(suffixes).to.include.members(['RPC_URL', 'CONFIRMATIONS', 'MAX_TIP_AGE_SECONDS', 'SCAN_SECONDS', 'COLD_ADDRESS']);
        expect(new Set(suffixes).size, 'each variable once').to.equal(suffixes.length);
        const networks = PRODUCTION_NETWORKS.filter((id) => {
          const production = NETWORKS[id].production;
          return production.kind === 'family' && production.family === family;
        });
        expect(networks).to.not.have.length(0);
        for (const variable of family.variables) {
          expect(variable.meaning, variable.suffix).to.not.equal('');
          const bad = BAD_VALUES[variable.suffix];
          expect(bad, `a value ${variable.suffix}'s check refuses, in BAD_VALUES`).to.be.a('string');
          for (const network of networks) {
            const name = `${network}_${variable.suffix}`;
            expect(variable.check(bad, name, contextOf(network)), `${name}=${JSON.stringify(bad)}`).to.include(name);
            const fallback = typeof variable.default === 'function' ? variable.default(network) : variable.default;
            if (fallback !== undefined) expect(variable.check(fallback, name, contextOf(network)), `${name}'s default`).to.equal(undefined);
            expect(variable.required === true && fallback !== undefined, `${name} is required or has a default, not both`).to.equal(false);
          }
        }
      });
    }
  });

  describe('a listed production network has an adapter', () => {
    let dir: string;
    let hotKey: string;
    before(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'pss-table-'));
      hotKey = path.join(dir, 'hot');
      // anvil's published first development key.
      await writeFile(hotKey, 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80\n', { mode: 0o600 });
    });
    after(() => rm(dir, { recursive: true, force: true }));

    it('reads every production network from its required variables alone and builds its watcher, address source and sender', async () => {
      const xpub = HDKey.fromMasterSeed(seed).derive("m/84'/0'/0'").publicExtendedKey;
      const env: Record<string, string> = { NETWORKS: PRODUCTION_NETWORKS.join(',') };
      for (const network of PRODUCTION_NETWORKS) {
        for (const variable of PRODUCTION_FAMILIES[familyOf(network)].variables) {
          if (!variable.required) continue;
          env[`${network}_${variable.suffix}`] =
            variable.suffix === 'XPUB' ? xpub : variable.suffix === 'HOT_WALLET_KEY_FILE' ? hotKey : `http://127.0.0.1:1/${network}`;
        }
      }
      const problems: string[] = [];
      const production = readProductionConfig(env, problems);
      expect(problems).to.deep.equal([]);
      expect(production.networks.map((n) => n.network)).to.deep.equal([...PRODUCTION_NETWORKS]);
      const served = servedCatalog(catalog, production);
      // Building an adapter asks no node anything: the URLs above lead nowhere.
      const built = await createProductionChainAdapters({
        production,
        knex: {} as Knex,
        catalog: served,
        logger: pino({ level: 'silent' }),
      });
      expect(built.registry.networks).to.have.members([...PRODUCTION_NETWORKS]);
      for (const network of PRODUCTION_NETWORKS) {
        const adapters = built.registry.of(network);
        expect(adapters.watcher.scan, network).to.be.a('function');
        expect(adapters.addresses.depositAddress, network).to.be.a('function');
        expect(adapters.sender.spendable, network).to.be.a('function');
        expect(
          served.assets.some((a) => a.network === network && a.symbol === NETWORKS[network].nativeCoin),
          network,
        ).to.equal(true);
      }
    });
  });
});

function familyOf(network: string) {
  const production = NETWORKS[network].production;
  if (production.kind !== 'family') throw new Error(`${network} is sandbox-only`);
  return production.family.family;
}
