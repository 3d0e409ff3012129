import { expect } from 'chai';
import type { ChallengeRecord } from '../../../server/store/routes.js';
import {
  CHALLENGE_CONDITIONS,
  CHALLENGE_SPENDABLE,
  challengeRefusal,
  UNKNOWN_CHALLENGE_REASON,
  type ChallengeSpend,
} from '../../../server/store/route-challenge.js';
import { CREATE_ROUTES_FUNCTION, functionMarker } from '../../../server/store/statement-functions.js';

// pss_create_routes version 1 as generated (see the last test).
const PINNED_MARKER = 'pss:1:cca7deea40ce7f51785c0a8803c1afd66fea99d51a49cce393163df989a43f7f';

const ISSUED_AT = new Date('2026-07-01T12:00:00.000Z');
const EXPIRES_AT = new Date('2026-07-01T12:10:00.000Z');

// One challenge and one create that may spend it; each case below breaks one thing.
function challenge(): ChallengeRecord {
  return {
    id: '6f1c1a52-3c1e-4d7e-9b55-0c3f4f0f6a01',
    partnerId: 'a0c7d1a4-52f8-4d0e-8d1c-2f5b9e3a7c11',
    externalUser: 'user-42',
    destinationAsset: 'ZANO',
    destinationNetwork: 'ZANO',
    destinationAddress: 'ZxDFpn4k7xVYyc9VZ3LphrJbkpc46xfREace5bme1aXiMzKPAHA8jsTWcHSXhv9AdodSaoGXK9Mg7bk3ec4FkQrj357fZPWZX',
    label: null,
    text: 'Partner Swap Service ownership challenge\n...',
    expiresAt: EXPIRES_AT,
    usedAt: null,
    createdAt: ISSUED_AT,
  };
}

function spend(): ChallengeSpend {
  const c = challenge();
  return {
    partnerId: c.partnerId,
    externalUser: c.externalUser,
    destinationAsset: c.destinationAsset,
    destinationNetwork: c.destinationNetwork,
    destinationAddress: c.destinationAddress,
    createdAt: new Date(ISSUED_AT.getTime() + 60_000),
    message: c.text,
  };
}

// Each field a create may differ in from its challenge, and what the refusal then says.
const BREAKS: Array<{ field: string; challenge?: Partial<ChallengeRecord>; spend?: Partial<ChallengeSpend>; reason: string }> = [
  { field: 'partner', spend: { partnerId: 'b1d8e2b5-63f9-4e1f-9e2d-3a6c0f4b8d22' }, reason: 'it is unknown' },
  { field: 'use', challenge: { usedAt: new Date(ISSUED_AT.getTime() + 1_000) }, reason: 'it was already used' },
  { field: 'expiry', spend: { createdAt: EXPIRES_AT }, reason: 'it has expired' },
  { field: 'user', spend: { externalUser: 'user-43' }, reason: 'it was issued to another user' },
  { field: 'asset', spend: { destinationAsset: 'fUSD' }, reason: 'it was issued for another settlement target' },
  { field: 'network', spend: { destinationNetwork: 'ETH' }, reason: 'it was issued for another settlement target' },
  {
    field: 'address',
    spend: { destinationAddress: 'ZxD5aoLDPTdcaRx4uCpyW4XiLfEXejepAVz8cSY2fwHNEiJNu6NmpBBDLGTJzCsUvn3acCVDVDPMV8yQXdPooAp338Se7AxeH' },
    reason: 'it was issued for another settlement target',
  },
  { field: 'text', spend: { message: 'Partner Swap Service ownership challenge\n.!.' }, reason: 'message differs from the challenge text' },
];

const words = (sql: string) => sql.replace(/\s+/g, ' ').trim();

describe('store/route-challenge', () => {
  describe('CHALLENGE_CONDITIONS', () => {
    it('lists the reasons in the order the spec lists the checks', () => {
      expect(CHALLENGE_CONDITIONS.map((c) => c.reason)).to.deep.equal([
        'it is unknown',
        'it was already used',
        'it has expired',
        'it was issued to another user',
        'it was issued for another settlement target',
        'message differs from the challenge text',
      ]);
    });

    it('holds every condition for a challenge the create may spend', () => {
      for (const condition of CHALLENGE_CONDITIONS) expect(condition.holds(challenge(), spend()), condition.reason).to.equal(true);
    });

    for (const { field, challenge: changed, spend: brought, reason } of BREAKS) {
      it(`fails only the condition of the ${field} for a create that differs in it`, () => {
        const failing = CHALLENGE_CONDITIONS.filter((c) => !c.holds({ ...challenge(), ...changed }, { ...spend(), ...brought }));
        expect(failing.map((c) => c.reason)).to.deep.equal([reason]);
      });
    }
  });

  describe('CHALLENGE_SPENDABLE', () => {
    it('is every condition of the table, joined by and', () => {
      const conditions = CHALLENGE_CONDITIONS.map((c) => `(${words(c.sql)})`);
      expect(words(CHALLENGE_SPENDABLE)).to.equal(conditions.join(' and '));
    });

    it('compares each column of the challenge the create names, and nothing else', () => {
      const comparisons = words(CHALLENGE_SPENDABLE).replace(/[()]/g, '').split(' and ');
      expect(comparisons).to.have.members([
        'c.partner_id = input.partner_id',
        'c.used_at is null',
        'c.expires_at > input.created_at',
        'c.external_user = input.external_user',
        'c.destination_asset = input.destination_asset',
        'c.destination_network = input.destination_network',
        'c.destination_address = input.destination_address',
        'c.text = input.message',
      ]);
      expect(comparisons).to.have.length(8);
    });
  });

  describe('challengeRefusal(challenge, spend)', () => {
    it('answers undefined for a challenge the create may spend', () => {
      expect(challengeRefusal(challenge(), spend())).to.equal(undefined);
    });

    it('answers a challenge that was not found as unknown', () => {
      expect(challengeRefusal(undefined, spend())).to.equal(UNKNOWN_CHALLENGE_REASON).and.to.equal('it is unknown');
    });

    it('lets a create spend its challenge until the moment it expires, not at that moment', () => {
      expect(challengeRefusal(challenge(), { ...spend(), createdAt: new Date(EXPIRES_AT.getTime() - 1) })).to.equal(undefined);
      expect(challengeRefusal(challenge(), { ...spend(), createdAt: EXPIRES_AT })).to.equal('it has expired');
    });

    for (const { field, challenge: changed, spend: brought, reason } of BREAKS) {
      it(`says "${reason}" for a create that differs in the ${field}`, () => {
        expect(challengeRefusal({ ...challenge(), ...changed }, { ...spend(), ...brought })).to.equal(reason);
      });
    }

    it('names the first condition that fails when several do', () => {
      // Everything broken at once, then mended from the front: each answer is the next condition in the table.
      const answers: Array<string | undefined> = [];
      for (let mended = 0; mended <= BREAKS.length; mended++) {
        let c = challenge();
        let s = spend();
        for (const b of BREAKS.slice(mended)) {
          c = { ...c, ...b.challenge };
          s = { ...s, ...b.spend };
        }
        answers.push(challengeRefusal(c, s));
      }
      expect(answers).to.deep.equal([...BREAKS.map((b) => b.reason), undefined]);
    });
  });

  describe('the deployed function (store/statement-functions.ts)', () => {
    // Pins the generated text to its version: a change of the rule or the statement fails here until
    // CREATE_ROUTES_FUNCTION.version is raised and the new marker written below, so that an older release
    // never replaces a newer rule (deployStatementFunctions leaves a higher version in place).
    it('has the marker of its version', () => {
      expect(functionMarker(CREATE_ROUTES_FUNCTION)).to.equal(PINNED_MARKER);
    });
  });
});
