import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { calculateJwkThumbprint, compactVerify, createLocalJWKSet } from 'jose';
import {
  createInstructionsSigner,
  DEPOSIT_INSTRUCTIONS_TYPE,
  depositInstructionsOf,
  publicJwkOf,
  routeAddressesOf,
} from '../../../server/domain/signed-instructions.js';
import { swapRecord } from '../../support/swap-record.js';

const AT = new Date('2026-06-14T10:12:07.000Z');

describe('signed instructions', () => {
  describe('createInstructionsSigner(privateKey).sign(typ, payload)', () => {
    for (const [alg, pair] of [
      ['EdDSA', generateKeyPairSync('ed25519')],
      ['ES256', generateKeyPairSync('ec', { namedCurve: 'P-256' })],
    ] as const) {
      it(`writes a compact ${alg} JWS that jose verifies, whose kid is the key's RFC 7638 thumbprint`, async () => {
        const jwk = publicJwkOf(pair.privateKey);
        expect(jwk.kid).to.equal(await calculateJwkThumbprint(jwk as never, 'sha256'));
        expect(publicJwkOf(pair.publicKey)).to.deep.equal(jwk);
        const jws = createInstructionsSigner(pair.privateKey).sign(DEPOSIT_INSTRUCTIONS_TYPE, { swapId: 'swap-1' });
        const { payload, protectedHeader } = await compactVerify(jws, createLocalJWKSet({ keys: [jwk as never] }));
        expect(protectedHeader).to.deep.equal({ alg, kid: jwk.kid, typ: 'deposit-instructions+jws' });
        expect(JSON.parse(new TextDecoder().decode(payload))).to.deep.equal({ swapId: 'swap-1' });
      });
    }

    it('refuses to sign with a key of another kind', () => {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
      expect(() => createInstructionsSigner(privateKey)).to.throw(/holds an EC key on secp256k1; a signing key is Ed25519/);
    });
  });

  describe('depositInstructionsOf(swap, at)', () => {
    it("holds the swap's own fields of the same names and the signing time", () => {
      const swap = swapRecord({ depositAddress: 'ltc1qexample', depositMemo: null });
      const instructions = depositInstructionsOf(swap, AT);
      expect(instructions).to.include({
        swapId: swap.id,
        depositAddress: 'ltc1qexample',
        depositAmount: swap.depositAmount,
        destination: swap.destination,
        rateType: swap.rateType,
        quoteExpiresAt: swap.quoteExpiresAt.toISOString(),
        signedAt: '2026-06-14T10:12:07.000Z',
      });
    });

    it('refuses a swap without a deposit address: there is nothing to sign yet', () => {
      expect(() => depositInstructionsOf(swapRecord({ depositAddress: null }), AT)).to.throw(/has no deposit address to sign/);
    });
  });

  describe('routeAddressesOf(route, at)', () => {
    it('lists the addresses in the order of their keys, so the same route always signs the same text', () => {
      const route = {
        routeId: 'r',
        externalUser: 'u',
        destinationAsset: 'ZANO',
        destinationNetwork: 'ZANO',
        destinationAddress: 'Zx',
        addresses: { 'USDT/ETH': '0xa', 'BTC/BTC': 'bc1', 'ETH/ETH': '0xa' },
      };
      expect(Object.keys(routeAddressesOf(route, AT).addresses)).to.deep.equal(['BTC/BTC', 'ETH/ETH', 'USDT/ETH']);
    });
  });
});
