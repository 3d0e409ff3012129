import { expect } from 'chai';
import { createCryptoThread, type CryptoThread } from '../../server/crypto-thread.js';
import { sandboxAddress } from '../../server/domain/addresses.js';
import { signZanoMessage, verifyZanoProof, type ZanoProof, type ZanoProofResult } from '../../server/domain/zano-proof.js';
import { seedOf } from '../../server/adapters/sandbox/chain.js';
import { freshScalar, freshZanoWallet } from '../support/routes.js';

// /work/shared/reference/zano-vectors.md: the first address of the table, its v2 signature of the message.
const VECTOR: ZanoProof = {
  address: 'ZxDFpn4k7xVYyc9VZ3LphrJbkpc46xfREace5bme1aXiMzKPAHA8jsTWcHSXhv9AdodSaoGXK9Mg7bk3ec4FkQrj357fZPWZX',
  message: 'Zano ownership challenge: nonce=0123456789abcdef',
  publicKey: 'b3eee2376f32bf2bfb5cf9c023f569380c84ac8c64ddc8f7c109730dc8e97d7a',
  signature:
    '05ea6a263932751e03afb1c1ad143532f458cedd3c8b77e0aa2c5a40f5531e04e781bf80330d9f968bd2ea1d42c917d0213e3e71cde809606b3a31beba13c20d',
};

describe('createCryptoThread()', () => {
  let thread: CryptoThread;
  beforeEach(() => {
    thread = createCryptoThread();
  });
  afterEach(() => thread.close());

  describe('.verifyZanoProof(proof)', () => {
    it("gives verifyZanoProof's verdict: the vector proof verifies, a changed message is refused with the same reason", async () => {
      expect(await thread.verifyZanoProof(VECTOR)).to.deep.equal({ ok: true, format: 'v2' });
      const changed = { ...VECTOR, message: VECTOR.message.replace('f', 'e') };
      const refused = await thread.verifyZanoProof(changed);
      expect(refused.ok).to.equal(false);
      expect(refused).to.deep.equal(verifyZanoProof(changed));
    });

    it('answers each of a batch made in one turn with its own verdict, in order', async () => {
      const proofs = Array.from({ length: 20 }, (_, i) => {
        const wallet = freshZanoWallet();
        const message = `challenge ${i}`;
        const proof = { address: wallet.address, message, ...signZanoMessage(wallet.secret, message, freshScalar(), 'v2') };
        // Every third proof is for another text than the one signed.
        return i % 3 === 0 ? { ...proof, message: `${message}!` } : proof;
      });
      const verdicts = await Promise.all(proofs.map((p) => thread.verifyZanoProof(p)));
      expect(verdicts.map((v) => v.ok)).to.deep.equal(proofs.map((_, i) => i % 3 !== 0));
      expect(verdicts).to.deep.equal(proofs.map((p) => verifyZanoProof(p)));
    });

    it('keeps two batches on the thread and sends the calls made meanwhile together: each gets its own verdict, in order', async () => {
      const batches: number[] = [];
      await thread.close();
      thread = createCryptoThread({ onBatch: (calls) => batches.push(calls) });
      // 200 signature checks: tens of milliseconds of the thread's work, while this test takes five turns.
      const ahead = Array.from({ length: 200 }, () => thread.verifyZanoProof(VECTOR));
      let aheadAnswered = false;
      void Promise.all(ahead).then(() => (aheadAnswered = true));
      // The batch of 200 reaches the thread at the end of this turn; these calls are made in later turns, while it works.
      const later: Array<Promise<{ afterAhead: boolean; verdict: ZanoProofResult; expected: ZanoProofResult }>> = [];
      for (let i = 0; i < 5; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        const proof = i % 2 === 0 ? VECTOR : { ...VECTOR, message: `${VECTOR.message}${i}` };
        later.push(
          thread.verifyZanoProof(proof).then((verdict) => ({ afterAhead: aheadAnswered, verdict, expected: verifyZanoProof(proof) })),
        );
      }
      for (const answer of await Promise.all(later)) {
        expect(answer.afterAhead, 'answered after the batch ahead of it').to.equal(true);
        expect(answer.verdict).to.deep.equal(answer.expected);
      }
      expect((await Promise.all(later)).map((a) => a.verdict.ok)).to.deep.equal([true, false, true, false, true]);
      expect((await Promise.all(ahead)).every((v) => v.ok)).to.equal(true);
      // The first later call goes at once, to wait on the thread behind the 200; the next four wait for the 200
      // to be answered, and go as one batch.
      expect(batches, 'calls per batch sent').to.deep.equal([200, 1, 4]);
    });
  });

  describe('.sandboxAddress(network, seed)', () => {
    it('derives the addresses sandboxAddress derives; an unknown network rejects with its error, and only that call', async () => {
      const networks = ['BTC', 'ETH', 'TRX', 'ZANO', 'NOPE', 'BSC'];
      const seeds = networks.map((n) => seedOf(`route-address:test:${n}`));
      const results = await Promise.allSettled(networks.map((n, i) => thread.sandboxAddress(n, seeds[i])));
      networks.forEach((network, i) => {
        if (network === 'NOPE') {
          expect(results[i].status).to.equal('rejected');
          expect(() => sandboxAddress(network, seeds[i])).to.throw((results[i] as PromiseRejectedResult).reason.message);
        } else {
          expect(results[i]).to.deep.equal({ status: 'fulfilled', value: sandboxAddress(network, seeds[i]) });
        }
      });
    });
  });

  describe('.close()', () => {
    it('refuses the calls in flight, and a later call starts a new thread', async () => {
      await thread.verifyZanoProof(VECTOR); // the thread is running
      // Some 500 signature checks: far more than the thread does before it is ended.
      const inFlight = Promise.all(Array.from({ length: 500 }, () => thread.verifyZanoProof(VECTOR))).then(
        () => undefined,
        (err: unknown) => err,
      );
      // Let the batch reach the thread, then end it.
      await new Promise((resolve) => setImmediate(resolve));
      await thread.close();
      expect(await inFlight)
        .to.be.instanceOf(Error)
        .with.property('message', 'the crypto thread was closed');
      expect(await thread.verifyZanoProof(VECTOR)).to.deep.equal({ ok: true, format: 'v2' });
    });

    it('refuses the calls waiting behind the batches on the thread, and a later call is answered', async () => {
      const settle = (p: Promise<unknown>) =>
        p.then(
          () => undefined,
          (err: unknown) => err,
        );
      const first = settle(Promise.all(Array.from({ length: 200 }, () => thread.verifyZanoProof(VECTOR))));
      await new Promise((resolve) => setImmediate(resolve));
      const second = settle(thread.verifyZanoProof(VECTOR));
      await new Promise((resolve) => setImmediate(resolve));
      // Two batches are on the thread: this one waits here.
      const waiting = settle(thread.verifyZanoProof(VECTOR));
      await thread.close();
      for (const refused of [await first, await second, await waiting]) {
        expect(refused).to.be.instanceOf(Error).with.property('message', 'the crypto thread was closed');
      }
      expect(await thread.verifyZanoProof(VECTOR)).to.deep.equal({ ok: true, format: 'v2' });
    });

    it('refuses the calls of this turn not yet sent to the thread', async () => {
      const queued = thread.verifyZanoProof(VECTOR).then(
        () => undefined,
        (err: unknown) => err,
      );
      await thread.close();
      expect(await queued)
        .to.be.instanceOf(Error)
        .with.property('message', 'the crypto thread was closed');
    });
  });
});
