import { base58, base58xmr, hex } from '@scure/base';
import { expect } from 'chai';
import fc from 'fast-check';
import {
  SANDBOX_SEED_BYTES,
  sandboxAddress,
  sandboxMemo,
  sandboxTxHash,
  validateAddress,
  validateMemo,
} from '../../../server/domain/addresses.js';
import { parseAccountKey } from '../../../server/adapters/bitcoin/keys.js';
import { parseBitcoinParams } from '../../../server/adapters/bitcoin/params.js';
import { loadSandboxCatalog } from '../../../server/adapters/sandbox/catalog.js';
import { testAccount } from '../../support/litecoind.js';
import type { CatalogAsset } from '../../../server/domain/catalog.js';
import { keccak256 } from '../../../server/domain/keccak.js';
import { moneroIntegratedAddress } from '../../../server/domain/monero-address.js';

// The catalogue itself (its data and the table of networks), so a network added there without address rules fails here.
const catalogue = loadSandboxCatalog();
const NETWORK_IDS = Object.keys(catalogue.networks);

function asset(symbol: string, network: string): CatalogAsset {
  const found = catalogue.assets.find((a) => a.symbol === symbol && a.network === network);
  if (!found) throw new Error(`${symbol}/${network} is not in the catalogue`);
  return found;
}

/** Networks that share an address format accept each other's addresses by design. */
const FORMAT: Record<string, string> = { ETH: 'EVM', BSC: 'EVM' };
const formatOf = (network: string) => FORMAT[network] ?? network;

interface Vector {
  address: string;
  source: string;
  /** Other catalogue networks on which the same text is legitimately an address. */
  alsoValidOn?: string[];
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const XRP_ALPHABET = 'rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz';
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const VALID: Record<string, { alphabet: string; vectors: Vector[] }> = {
  BTC: {
    alphabet: BASE58,
    vectors: [
      { address: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', source: 'P2PKH: the genesis block coinbase address' },
      { address: '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', source: 'P2SH: the Bitcoin wiki "Address" page example', alsoValidOn: ['LTC'] },
      { address: 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', source: 'BIP-173 / BIP-350 valid segwit vector (P2WPKH, upper case)' },
      {
        address: 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
        source: 'BIP-173 examples: mainnet P2WSH',
      },
      {
        address: 'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
        source: 'BIP-350 valid segwit vector (v1, 40 bytes)',
      },
      { address: 'BC1SW50QGDZ25J', source: 'BIP-350 valid segwit vector (v16, 2 bytes)' },
      { address: 'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', source: 'BIP-350 valid segwit vector (v2, 16 bytes)' },
      { address: 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', source: 'BIP-350 valid segwit vector (taproot)' },
    ],
  },
  ETH: {
    alphabet: '0123456789abcdef',
    vectors: [
      // EIP-55 test vectors: mixed case, all upper case, all lower case.
      { address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', source: 'EIP-55 test vector' },
      { address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', source: 'EIP-55 test vector' },
      { address: '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', source: 'EIP-55 test vector' },
      { address: '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb', source: 'EIP-55 test vector' },
      { address: '0x52908400098527886E0F7030069857D2E4169EE7', source: 'EIP-55 test vector (all caps)' },
      { address: '0x8617E340B3D01FA5F11F306F4090FD50E238070D', source: 'EIP-55 test vector (all caps)' },
      { address: '0xde709f2102306220921060314715629080e2fb77', source: 'EIP-55 test vector (all lower)' },
      { address: '0x27b1fdb04752bbc536007a920d24acb045561c26', source: 'EIP-55 test vector (all lower)' },
    ],
  },
  BSC: {
    alphabet: '0123456789abcdef',
    vectors: [
      { address: '0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c', source: 'WBNB token contract as BscScan lists it' },
      { address: '0x55d398326f99059fF775485246999027B3197955', source: 'USDT (BEP-20) token contract as BscScan lists it' },
      { address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', source: 'EIP-55 test vector (BSC uses the same format)' },
    ],
  },
  TRX: {
    alphabet: BASE58,
    vectors: [
      { address: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL', source: 'TRON developer docs, account address example (hex 418840e6...)' },
      { address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', source: 'USDT TRC-20 contract as Tether publishes it' },
    ],
  },
  SOL: {
    alphabet: BASE58,
    vectors: [
      { address: '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaY3mDLVcri', source: 'Solana JSON-RPC docs, getBalance example' },
      { address: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', source: 'SPL Token program id, Solana docs' },
      { address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', source: 'USDC mint on Solana, Circle docs' },
    ],
  },
  XRP: {
    alphabet: XRP_ALPHABET,
    vectors: [
      { address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', source: 'XRPL docs, Accounts: the genesis account' },
      { address: 'rf1BiGeXwwQoi8Z2ueFYTEXSwuJYfV2Jpn', source: 'XRPL docs, transaction examples' },
      { address: 'rrrrrrrrrrrrrrrrrrrrrhoLvTp', source: 'XRPL docs, Accounts: special address ACCOUNT_ZERO' },
    ],
  },
  TON: {
    alphabet: BASE64URL,
    vectors: [
      { address: 'EQDKbjIcfM6ezt8KjKJJLshZJJSqX7XOA4ff-W72r5gqPrHF', source: 'TON docs, Smart contract addresses (bounceable)' },
      { address: 'UQDKbjIcfM6ezt8KjKJJLshZJJSqX7XOA4ff-W72r5gqPuwA', source: 'TON docs, Smart contract addresses (non-bounceable)' },
      {
        address: 'Ef8zMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzM0vF',
        source: 'the elector contract -1:3333..., masterchain, as TON tools list it',
      },
    ],
  },
  LTC: {
    alphabet: BASE58,
    vectors: [
      // wallet-address-validator's published test suite (ognus/wallet-address-validator and its forks).
      { address: 'LVg2kJoFNg45Nbpy53h7Fe1wKyeXVRhMH9', source: 'wallet-address-validator tests (P2PKH, L)' },
      { address: 'LTpYZG19YmfvY2bBDYtCKpunVRw7nVgRHW', source: 'wallet-address-validator tests (P2PKH, L)' },
      { address: 'Lb6wDP2kHGyWC7vrZuZAgV7V4ECyDdH7a6', source: 'wallet-address-validator tests (P2PKH, L)' },
      { address: '3NJZLcZEEYBpxYEUGewU4knsQRn1WM5Fkt', source: 'wallet-address-validator tests (legacy P2SH, 3)', alsoValidOn: ['BTC'] },
      { address: 'MHg7DcNPhpCqTxijJDmAyA2U3zjj475uf8', source: 'public address-validator test suites (P2SH, M)' },
      { address: 'ltc1qg42tkwuuxefutzxezdkdel39gfstuap288mfea', source: 'wallet-address-validator tests (P2WPKH)' },
      { address: 'ltc1qhxka8d59lylj76rpsflhagp76nvckggd8x0tt7jtnphpkmfv3snsk6suq0', source: 'multicoin-address-validator tests (P2WSH)' },
    ],
  },
  DOGE: {
    alphabet: BASE58,
    vectors: [
      { address: 'DPpJVPpvPNP6i6tMj4rTycAGh8wReTqaSU', source: 'wallet-address-validator tests (P2PKH, D)' },
      { address: 'DNzLUN6MyYVS5zf4Xc2yK69V3dXs6Mxia5', source: 'wallet-address-validator tests (P2PKH, D)' },
      { address: 'DPS6iZj7roHquvwRYXNBua9QtKPzigUUhM', source: 'wallet-address-validator tests (P2PKH, D)' },
      { address: 'A7JjzK9k9x5b2MkkQzqt91WZsuu7wTu6iS', source: 'wallet-address-validator tests (P2SH, A)' },
    ],
  },
  ZANO: {
    alphabet: BASE58,
    vectors: [
      {
        address: 'ZxDFpn4k7xVYyc9VZ3LphrJbkpc46xfREace5bme1aXiMzKPAHA8jsTWcHSXhv9AdodSaoGXK9Mg7bk3ec4FkQrj357fZPWZX',
        source: 'zano-vectors.md (standard)',
      },
      {
        address: 'iZ2kFmwxRHoaRxm1ni8HnfUTkYuKbni8s4CE2Z4GgFfH99BJ6cnbAtJTgUnZjPj9CTCTKy1qqM9wPCTp92uBC7e47JPoHxGL5UU2D1tpQMg4',
        source: 'zano-vectors.md (integrated)',
      },
      {
        address: 'aZxbBZTLRNv9VJpNtt3geei3o4mye12eFe6bNZAzxtiBg49XYns3HAkBVBn3N46s9A8Ai7PBbZxnbQZ3huf2zg3NAXQpyvGqLd7',
        source: 'zano-vectors.md (auditable)',
      },
      {
        address: 'aiZXDondHWu9AinRwcPqSqBKjckre7PgoZjK3q5YG2fUKHYWFZMWjB6YAEAdw4yDDUGEQ7CGEgbqhGRKeadGV1jLYcEJM9xJH8EbjuRiMJgFmPRATsEV9',
        source: 'hyle-team/zano tests/unit_tests/base58.cpp (auditable integrated)',
      },
    ],
  },
  XMR: {
    alphabet: BASE58,
    vectors: [
      {
        address: '44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3A',
        source: 'getmonero.org: the Monero General Fund donation address (standard)',
      },
      {
        address: '4AfUP827TeRZ1cck3tZThgZbRCEwBrpcJTkA1LCiyFVuMH4b5y59bKMZHGb9y58K3gSjWDCBsB4RkGsGDhsmMG5R2qmbLeW',
        source: 'monerodocs.org, Public Keys > Standard address example',
      },
      {
        address: '4LL9oSLmtpccfufTMvppY6JwXNouMBzSkbLYfpAV5Usx3skxNgYeYTRj5UzqtReoS44qo9mtmXCqY45DJ852K5Jv2bYXZKKQePHES9khPK',
        source: 'monerodocs.org, Public Keys > Integrated address example',
      },
      {
        address: '888tNkZrPN6JsEgekjMnABU4TBzc2Dt29EPAvkRxbANsAnjyPbb3iQ1YBRk1UXcdRsiKc9dhwMVgN5S9cQUiyoogDavup3H',
        source: 'getmonero.org Moneropedia, Subaddresses example',
      },
    ],
  },
};

const ALL_VECTORS = Object.entries(VALID).flatMap(([network, { vectors }]) => vectors.map((vector) => ({ network, ...vector })));

/** The address with the character at `at` replaced by the next one of the alphabet, in the address's case. */
function changeAt(address: string, at: number, alphabet: string): string {
  const upper = address === address.toUpperCase() && /[A-Z]/.test(address) && alphabet === BECH32;
  const chars = upper ? alphabet.toUpperCase() : alphabet;
  const current = chars.indexOf(address[at]);
  const next = chars[(current + 1) % chars.length];
  return `${address.slice(0, at)}${next}${address.slice(at + 1)}`;
}

/** Where a one-character change is tried: the last character and one in the middle of the payload. */
function changePositions(address: string): number[] {
  return [address.length - 1, Math.floor(address.length / 2)];
}

function reasonOf(network: string, address: string): string {
  const result = validateAddress(network, address);
  if (result.ok) throw new Error(`${network} accepted ${address}`);
  return result.reason;
}

function seedOf(byte: number): Uint8Array {
  return new Uint8Array(SANDBOX_SEED_BYTES).map((_, i) => (byte * 31 + i * 7) & 0xff);
}

const seedArbitrary = fc.uint8Array({ minLength: SANDBOX_SEED_BYTES, maxLength: SANDBOX_SEED_BYTES });

describe('validateAddress', () => {
  it('has published vectors for every network of the catalogue', () => {
    expect(Object.keys(VALID)).to.have.members(NETWORK_IDS);
  });

  for (const [network, { alphabet, vectors }] of Object.entries(VALID)) {
    describe(network, () => {
      for (const { address, source } of vectors) {
        it(`accepts ${address} (${source})`, () => {
          expect(validateAddress(network, address)).to.deep.equal({ ok: true, value: address });
        });
      }

      if (network === 'SOL') {
        it('cannot catch a mistyped character, because Solana addresses carry no checksum', () => {
          const [{ address }] = vectors;
          expect(validateAddress(network, changeAt(address, address.length - 1, alphabet)).ok).to.equal(true);
        });
      } else {
        it('refuses each vector with its last or a middle character changed', () => {
          for (const { address } of vectors) {
            // Single-case EVM addresses carry no EIP-55 checksum, so only checksummed ones can catch a change.
            if (
              formatOf(network) === 'EVM' &&
              (address.slice(2) === address.slice(2).toLowerCase() || address.slice(2) === address.slice(2).toUpperCase())
            )
              continue;
            for (const at of changePositions(address)) {
              const changed = formatOf(network) === 'EVM' ? flipCase(address, at) : changeAt(address, at, alphabet);
              expect(validateAddress(network, changed).ok, `${changed} (from ${address} @${at})`).to.equal(false);
            }
          }
        });
      }

      it('refuses the addresses of every network with another format', () => {
        for (const other of ALL_VECTORS) {
          if (formatOf(other.network) === formatOf(network) || other.alsoValidOn?.includes(network)) continue;
          expect(validateAddress(network, other.address).ok, `${other.network} ${other.address}`).to.equal(false);
        }
      });
    });
  }

  describe('BTC rules', () => {
    it('refuses every invalid segwit address listed in BIP-350', () => {
      const invalid = [
        'tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut',
        'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd',
        'tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf',
        'BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL',
        'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh',
        'tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47',
        'bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4',
        'BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R',
        'bc1pw5dgrnzv',
        'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav',
        'BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P',
        'tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq',
        'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf',
        'tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j',
        'bc1gmk9yu',
      ];
      for (const address of invalid) expect(validateAddress('BTC', address).ok, address).to.equal(false);
    });

    it('explains a bech32 checksum used where bech32m is required', () => {
      expect(reasonOf('BTC', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd')).to.match(/must use the bech32m checksum/);
    });

    it('refuses testnet addresses with a reason saying so', () => {
      // BIP-350 testnet vector and the Bitcoin developer guide's testnet P2PKH form.
      expect(reasonOf('BTC', 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7')).to.match(/testnet/);
      expect(reasonOf('BTC', 'mzBc4XEFSdzCDcTxAgf6EZXgsZWpztRhef')).to.match(/testnet/);
    });

    it('names the network a mixed-up address belongs to', () => {
      expect(reasonOf('BTC', 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL')).to.match(/valid TRX address/);
      expect(reasonOf('SOL', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).to.match(/valid ETH\/BSC address/);
    });

    it('says a changed base58 address has a checksum that does not match', () => {
      expect(reasonOf('BTC', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb')).to.match(/checksum does not match/);
    });
  });

  describe('LTC and DOGE rules', () => {
    it('refuses Litecoin testnet addresses (wallet-address-validator testnet vectors)', () => {
      for (const address of [
        'tltc1qu78xur5xnq6fjy83amy0qcjfau8m367defyhms',
        'mzBc4XEFSdzCDcTxAgf6EZXgsZWpztRhef',
        'QW2SvwjaJU8LD6GSmtm1PHnBG2xPuxwZFy',
      ]) {
        expect(reasonOf('LTC', address), address).to.match(/testnet/);
      }
    });

    it("accepts, on a Litecoin regtest or testnet service, that chain's addresses and refuses mainnet and the other chain's", () => {
      const params = parseBitcoinParams('LTC', 'regtest');
      const derived = parseAccountKey(testAccount().tpub, params).derive(0, 3).address;
      expect(derived).to.match(/^rltc1q/);
      expect(validateAddress('LTC', derived, 'regtest')).to.deep.equal({ ok: true, value: derived });
      expect(reasonOf('LTC', derived)).to.match(/testnet/);
      expect(validateAddress('LTC', 'mzBc4XEFSdzCDcTxAgf6EZXgsZWpztRhef', 'regtest').ok).to.equal(true);
      expect(validateAddress('LTC', 'tltc1qu78xur5xnq6fjy83amy0qcjfau8m367defyhms', 'test').ok).to.equal(true);
      const tltcOnRegtest = validateAddress('LTC', 'tltc1qu78xur5xnq6fjy83amy0qcjfau8m367defyhms', 'regtest');
      expect(tltcOnRegtest.ok ? '' : tltcOnRegtest.reason).to.match(/another chain; this service runs on regtest/);
      const mainnet = validateAddress('LTC', 'ltc1qg42tkwuuxefutzxezdkdel39gfstuap288mfea', 'test');
      expect(mainnet.ok ? '' : mainnet.reason).to.match(/another chain; this service runs on test/);
      const eth = validateAddress('ETH', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'regtest');
      expect(eth.ok ? '' : eth.reason).to.match(/ETH has no regtest chain here/);
    });

    it('accepts a 3... P2SH address on Bitcoin and on Litecoin, which still takes the legacy version', () => {
      expect(validateAddress('LTC', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy').ok).to.equal(true);
      expect(validateAddress('BTC', '3NJZLcZEEYBpxYEUGewU4knsQRn1WM5Fkt').ok).to.equal(true);
      expect(validateAddress('DOGE', '3NJZLcZEEYBpxYEUGewU4knsQRn1WM5Fkt').ok).to.equal(false);
    });
  });

  describe('EVM rules', () => {
    it('flags a mixed-case address whose EIP-55 checksum does not match', () => {
      expect(reasonOf('ETH', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).to.match(/EIP-55/);
    });

    it('accepts any change of an all-lower-case address, which carries no checksum', () => {
      expect(validateAddress('ETH', '0xde709f2102306220921060314715629080e2fb78').ok).to.equal(true);
    });

    it('explains a missing 0x prefix and a wrong length', () => {
      expect(reasonOf('ETH', '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).to.match(/lacks the 0x prefix/);
      expect(reasonOf('BSC', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA')).to.match(/38 hex digits/);
    });
  });

  describe('TRX rules', () => {
    it('refuses the hex form and says to give the base58 form', () => {
      expect(reasonOf('TRX', '418840E6C55B9ADA326D211D818C34A994AECED808')).to.match(/hex form/);
    });

    it('refuses a base58check address with another version byte', () => {
      expect(reasonOf('TRX', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).to.match(/version byte is not 0x41/);
    });
  });

  describe('SOL rules', () => {
    it('refuses base58 text that does not decode to 32 bytes', () => {
      expect(reasonOf('SOL', base58.encode(new Uint8Array(31).fill(9)))).to.match(/31 bytes/);
      expect(reasonOf('SOL', base58.encode(new Uint8Array(33).fill(9)))).to.match(/at most 44|33 bytes/);
    });
  });

  describe('XRP rules', () => {
    it('refuses an X-address with a reason that says to use the classic address and a tag', () => {
      // XRPL docs / XLS-5d X-address example.
      expect(reasonOf('XRP', 'X7AcgcsBL6XDcUb289X4mJ8djcdyKaB5hJDWMArnXr61cqZ')).to.match(/X-addresses are not accepted/);
    });
  });

  describe('TON rules', () => {
    it('accepts the raw form of the TON docs example', () => {
      const raw = '0:ca6e321c7cce9ecedf0a8ca2492ec8592494aa5fb5ce0387dff96ef6af982a3e';
      expect(validateAddress('TON', raw)).to.deep.equal({ ok: true, value: raw });
    });

    it('refuses the test-only form of the TON docs example', () => {
      expect(reasonOf('TON', 'kQDKbjIcfM6ezt8KjKJJLshZJJSqX7XOA4ff-W72r5gqPgpP')).to.match(/testnet-only/);
    });

    it('refuses a friendly address that mixes base64 and base64url', () => {
      expect(reasonOf('TON', 'EQDKbjIcfM6ezt8KjKJJLshZJJSqX7XOA4ff+W72r5gqPr_F')).to.match(/mixes the base64 and base64url/);
    });

    it('accepts the standard-base64 spelling of the same address', () => {
      expect(validateAddress('TON', 'EQDKbjIcfM6ezt8KjKJJLshZJJSqX7XOA4ff+W72r5gqPrHF').ok).to.equal(true);
    });
  });

  describe('ZANO rules', () => {
    it('refuses a gateway address with the decoder reason', () => {
      expect(reasonOf('ZANO', 'gwZ5sqZkre33rxhoo9ht5xcmzy5khvr2hFSfvk7TeXeMXxby7acC3fs1D')).to.match(/gateway address/);
    });
  });

  describe('XMR rules', () => {
    it('accepts the integrated address built on a standard one, and refuses a testnet address by name', () => {
      const standard = VALID.XMR.vectors[0].address;
      expect(validateAddress('XMR', moneroIntegratedAddress(standard, '0123456789abcdef')).ok).to.equal(true);
      // A testnet standard address (tag 53), built from the same keys.
      const keys = base58xmr.decode(standard).subarray(1, 65);
      const signed = Uint8Array.of(53, ...keys);
      const testnet = base58xmr.encode(Uint8Array.of(...signed, ...keccak256(signed).subarray(0, 4)));
      expect(reasonOf('XMR', testnet)).to.match(/Monero testnet address; give a mainnet one/);
    });

    it('refuses a Zano address as an address of another network, and names Monero when a Monero address is given for ZANO', () => {
      expect(reasonOf('ZANO', VALID.XMR.vectors[0].address)).to.match(/It is a valid XMR address: check the network/);
    });
  });

  describe('any network', () => {
    it('refuses an unknown network id with a reason instead of throwing', () => {
      for (const network of ['DOT', '', 'btc', '__proto__', 'constructor', 'toString']) {
        expect(reasonOf(network, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'), network).to.match(/^Unknown network/);
      }
    });

    it('refuses empty text, surrounding whitespace and overlong text with a reason', () => {
      expect(reasonOf('BTC', '')).to.match(/empty/);
      expect(reasonOf('BTC', ' 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).to.match(/spaces or line breaks/);
      expect(reasonOf('ETH', `0x${'a'.repeat(400)}`)).to.match(/longer than any address/);
    });

    it('never throws and returns the address unchanged when it accepts it (property)', () => {
      const network = fc.constantFrom(...NETWORK_IDS, 'NOPE', '__proto__');
      const text = fc.oneof(
        fc.string({ unit: 'binary', maxLength: 320 }),
        fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{1,300}$/),
        fc.stringMatching(/^(bc|ltc|tb)1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{6,90}$/),
        fc.stringMatching(/^[A-Za-z0-9_+/-]{48}$/),
      );
      fc.assert(
        fc.property(network, text, (id, address) => {
          const result = validateAddress(id, address);
          return result.ok ? result.value === address : result.reason.length > 0;
        }),
        { numRuns: 500 },
      );
    });

    it('never throws on published addresses with one character inserted, deleted or replaced (property)', () => {
      const edit = fc.record({
        vector: fc.constantFrom(...ALL_VECTORS),
        at: fc.nat(),
        kind: fc.constantFrom('insert', 'delete', 'replace'),
        ch: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
      });
      fc.assert(
        fc.property(edit, fc.constantFrom(...NETWORK_IDS), ({ vector, at, kind, ch }, network) => {
          const i = at % vector.address.length;
          const head = vector.address.slice(0, i);
          const tail = vector.address.slice(kind === 'insert' ? i : i + 1);
          const edited = `${head}${kind === 'delete' ? '' : ch}${tail}`;
          const result = validateAddress(network, edited);
          return result.ok || result.reason.length > 0;
        }),
        { numRuns: 500 },
      );
    });
  });
});

function flipCase(address: string, at: number): string {
  // The nearest letter at or before `at`: EIP-55 encodes its checksum in the case of letters only.
  let i = at;
  while (!/[a-fA-F]/.test(address[i])) i--;
  const ch = address[i];
  const flipped = ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase();
  return `${address.slice(0, i)}${flipped}${address.slice(i + 1)}`;
}

describe('validateMemo', () => {
  const XRP = asset('XRP', 'XRP');
  const TON = asset('TON', 'TON');
  const BTC = asset('BTC', 'BTC');

  describe('no memo', () => {
    it('treats "", null and undefined as no memo on every asset, whether it needs one or not', () => {
      for (const a of [XRP, TON, BTC]) {
        for (const memo of ['', null, undefined]) expect(validateMemo(a, memo)).to.deep.equal({ ok: true, value: null });
      }
    });

    it('refuses a memo for an asset whose network has none, saying so', () => {
      expect(validateMemo(BTC, '123')).to.deep.equal({ ok: false, reason: 'BTC on BTC has no memo; leave the memo empty.' });
      expect(validateMemo(asset('USDT', 'TRX'), 'abc').ok).to.equal(false);
    });
  });

  describe('XRP destination tag', () => {
    it('accepts unsigned 32-bit decimal integers', () => {
      for (const memo of ['0', '7', '12345', '4294967295']) expect(validateMemo(XRP, memo)).to.deep.equal({ ok: true, value: memo });
    });

    it('refuses signs, leading zeros, fractions, exponents, spaces, words and values above 2^32 - 1', () => {
      for (const memo of ['4294967296', '99999999999', '-1', '+1', '01', '00', '1.5', '1e3', ' 1', '1 ', 'abc', '０']) {
        const result = validateMemo(XRP, memo);
        expect(result.ok, memo).to.equal(false);
        if (!result.ok) expect(result.reason).to.match(/^Destination tag must be a whole number from 0 to 4294967295/);
      }
    });
  });

  describe('TON comment', () => {
    it('accepts text of 1 to 120 UTF-8 bytes, multi-byte characters counted in bytes', () => {
      for (const memo of ['x', 'invoice 42', 'Привет', '🚀 order', 'a'.repeat(120), 'я'.repeat(60)]) {
        expect(validateMemo(TON, memo), memo).to.deep.equal({ ok: true, value: memo });
      }
    });

    it('refuses more than 120 bytes', () => {
      expect(validateMemo(TON, 'a'.repeat(121))).to.deep.equal({
        ok: false,
        reason: 'Comment must be at most 120 bytes of UTF-8, not 121.',
      });
      expect(validateMemo(TON, 'я'.repeat(61)).ok).to.equal(false);
    });

    it('refuses control characters and broken UTF-16', () => {
      for (const memo of ['a\nb', '\u0000', 'tab\there', '\u007f', '\u0085', 'lone \ud800']) {
        expect(validateMemo(TON, memo), JSON.stringify(memo)).to.deep.equal({
          ok: false,
          reason: 'Comment must not contain control characters.',
        });
      }
    });
  });

  it('applies plain-text rules to a memo-taking asset on a network without a rule of its own', () => {
    const custom: CatalogAsset = { ...BTC, symbol: 'XLM', network: 'XLM', memoNeeded: true, memoName: 'Memo' };
    expect(validateMemo(custom, 'hello')).to.deep.equal({ ok: true, value: 'hello' });
    expect(validateMemo(custom, 'a\u0007')).to.deep.equal({ ok: false, reason: 'Memo must not contain control characters.' });
  });
});

describe('sandboxAddress', () => {
  for (const network of NETWORK_IDS) {
    it(`gives ${network} addresses that ${network} accepts and no network of another format does (property)`, () => {
      fc.assert(
        fc.property(seedArbitrary, (seed) => {
          const address = sandboxAddress(network, seed);
          expect(validateAddress(network, address), address).to.deep.equal({ ok: true, value: address });
          for (const other of NETWORK_IDS.filter((id) => formatOf(id) !== formatOf(network))) {
            expect(validateAddress(other, address).ok, `${other} accepted ${address}`).to.equal(false);
          }
        }),
        { numRuns: 25 },
      );
    });
  }

  it('gives the same address for the same seed and another for another seed', () => {
    for (const network of NETWORK_IDS) {
      expect(sandboxAddress(network, seedOf(1))).to.equal(sandboxAddress(network, seedOf(1)));
      expect(sandboxAddress(network, seedOf(1))).to.not.equal(sandboxAddress(network, seedOf(2)));
    }
  });

  it('uses the form current wallets hand out', () => {
    expect(sandboxAddress('BTC', seedOf(1))).to.match(/^bc1q/);
    expect(sandboxAddress('LTC', seedOf(1))).to.match(/^ltc1q/);
    expect(sandboxAddress('DOGE', seedOf(1))).to.match(/^D/);
    expect(sandboxAddress('TRX', seedOf(1))).to.match(/^T/);
    expect(sandboxAddress('XRP', seedOf(1))).to.match(/^r/);
    expect(sandboxAddress('TON', seedOf(1))).to.match(/^UQ/);
    expect(sandboxAddress('ZANO', seedOf(1))).to.match(/^Zx/);
    expect(sandboxAddress('ETH', seedOf(1))).to.match(/^0x(?=.*[a-f])(?=.*[A-F])/);
  });

  it('throws for an unknown network or a seed of the wrong size', () => {
    expect(() => sandboxAddress('DOT', seedOf(1))).to.throw(RangeError, /Unknown network/);
    expect(() => sandboxAddress('BTC', new Uint8Array(16))).to.throw(RangeError, /32 bytes/);
  });
});

describe('sandboxTxHash', () => {
  it('is alphanumeric and at most 128 characters on every network (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...NETWORK_IDS), seedArbitrary, (network, seed) => {
        const hash = sandboxTxHash(network, seed);
        return /^[A-Za-z0-9]+$/.test(hash) && hash.length <= 128;
      }),
    );
  });

  it("uses each network's notation", () => {
    const seed = seedOf(3);
    for (const network of ['BTC', 'LTC', 'DOGE', 'TRX', 'TON', 'ZANO'])
      expect(sandboxTxHash(network, seed), network).to.match(/^[0-9a-f]{64}$/);
    for (const network of ['ETH', 'BSC']) expect(sandboxTxHash(network, seed), network).to.match(/^0x[0-9a-f]{64}$/);
    expect(sandboxTxHash('XRP', seed)).to.match(/^[0-9A-F]{64}$/);
    expect(base58.decode(sandboxTxHash('SOL', seed))).to.have.length(64);
    expect(sandboxTxHash('BTC', seed)).to.equal(hex.encode(seed));
  });
});

describe('sandboxMemo', () => {
  it('gives every catalogue asset that needs a memo one that validateMemo accepts, and the others null (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...catalogue.assets), seedArbitrary, (a, seed) => {
        const memo = sandboxMemo(a, seed);
        if (!a.memoNeeded) return memo === null;
        return memo !== null && memo !== '' && validateMemo(a, memo).ok;
      }),
    );
  });

  it('gives an XRP destination tag and a TON comment', () => {
    expect(sandboxMemo(asset('XRP', 'XRP'), seedOf(4))).to.match(/^(0|[1-9]\d*)$/);
    expect(sandboxMemo(asset('TON', 'TON'), seedOf(4))).to.match(/^sandbox-[0-9a-f]{16}$/);
  });
});
