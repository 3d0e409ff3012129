import { expect } from 'chai';
import { createScreening, NO_SCREENING } from '../../../server/adapters/screening.js';
import { MAX_SCREENING_ANSWER_BYTES, parseDenylist } from '../../../server/domain/screening.js';

const EVM = '0x71C7656EC7ab88b098defB751B7401B5f6d8976F';
const subject = { network: 'ETH', address: EVM, role: 'destination' as const };

// A fetch that answers `body` with `status`, and records what it was asked.
function answering(body: string, status = 200) {
  const asked: Array<{ url: string; body: unknown }> = [];
  const fetchFn = (async (url: string, init: RequestInit) => {
    asked.push({ url, body: JSON.parse(String(init.body)) });
    return new Response(body, { status, headers: { 'content-type': 'application/json' } });
  }) as unknown as typeof fetch;
  return { fetchFn, asked };
}

describe('screening (adapter)', () => {
  it('allows everything and is off with neither a denylist nor a URL', async () => {
    const screening = createScreening({ timeoutMs: 100, failMode: 'closed' });
    expect(screening).to.equal(NO_SCREENING);
    expect((await screening.screen(subject)).decision).to.equal('allow');
  });

  it('denies from the denylist without asking the provider', async () => {
    const { fetchFn, asked } = answering('{"decision":"allow"}');
    const denylist = parseDenylist(EVM, 'test', ['ETH']);
    const verdict = await createScreening({
      denylist,
      url: 'http://screen.test/',
      timeoutMs: 100,
      failMode: 'open',
      fetch: fetchFn,
    }).screen(subject);
    expect(verdict).to.include({ decision: 'deny', provider: 'denylist' });
    expect(asked).to.have.length(0);
  });

  it('posts network, address and role, and returns the provider decision and reason', async () => {
    const { fetchFn, asked } = answering('{"decision":"review","reason":"exposure to a mixer"}');
    const verdict = await createScreening({ url: 'http://screen.test/check', timeoutMs: 100, failMode: 'open', fetch: fetchFn }).screen(
      subject,
    );
    expect(verdict).to.deep.equal({ decision: 'review', reason: 'exposure to a mixer', provider: 'provider' });
    expect(asked).to.deep.equal([{ url: 'http://screen.test/check', body: { network: 'ETH', address: EVM, role: 'destination' } }]);
  });

  for (const [failMode, decision] of [
    ['closed', 'review'],
    ['open', 'allow'],
  ] as const) {
    describe(`with SCREENING_FAIL_MODE=${failMode}`, () => {
      const screen = (fetchFn: typeof fetch) =>
        createScreening({ url: 'http://screen.test/', timeoutMs: 50, failMode, fetch: fetchFn }).screen(subject);

      it(`answers ${decision} for a malformed answer, saying what was wrong`, async () => {
        for (const [body, why] of [
          ['not json', /not JSON/],
          ['{"decision":"maybe"}', /decision "maybe"/],
          ['[]', /not a JSON object/],
        ] as const) {
          const verdict = await screen(answering(body).fetchFn);
          expect(verdict.decision, body).to.equal(decision);
          expect(verdict.failure, body).to.match(why);
          expect(verdict.reason).to.include(`SCREENING_FAIL_MODE=${failMode}`);
        }
      });

      it(`answers ${decision} for an HTTP error and for an answer over ${MAX_SCREENING_ANSWER_BYTES} bytes`, async () => {
        expect(await screen(answering('{"decision":"allow"}', 500).fetchFn)).to.include({ decision, failure: 'answered HTTP 500' });
        const big = JSON.stringify({ decision: 'allow', reason: 'x'.repeat(MAX_SCREENING_ANSWER_BYTES) });
        expect((await screen(answering(big).fetchFn)).failure).to.match(/more than 16384 bytes/);
      });

      it(`answers ${decision} when the provider does not answer in time`, async () => {
        const hanging = ((_url: string, init: RequestInit) =>
          new Promise((_resolve, reject) =>
            init.signal!.addEventListener('abort', () => reject(init.signal!.reason)),
          )) as unknown as typeof fetch;
        expect(await screen(hanging)).to.include({ decision, failure: 'did not answer within 50 ms' });
      });
    });
  }
});
