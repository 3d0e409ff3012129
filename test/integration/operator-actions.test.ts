import { expect } from 'chai';
import { AppError } from '../../server/domain/errors.js';
import { runOperatorAction } from '../../server/operator-actions.js';
import { provisionPartner } from '../../server/partners.js';
import { findPartnerByKeyId } from '../../server/store/partners.js';
import { listOperatorActions } from '../../server/store/operator-actions.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('runOperatorAction: an operator action and its record in the trail', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const trailOf = (target: string) => listOperatorActions(server.knex, { limit: 10, target });
  const create = (keyId: string) => (trx: Parameters<Parameters<typeof runOperatorAction>[4]>[0]) =>
    provisionPartner(trx, server.secretBox, { name: keyId, keyId, mode: 'sandbox' });

  it('commits the change and its succeeded record together', async () => {
    await runOperatorAction(server.knex, { actor: 'ann', reason: 'onboarding' }, 'partner.create', 'pk_committed', async (trx) => {
      const issued = await create('pk_committed')(trx);
      return { value: issued, details: { partnerId: issued.partnerId } };
    });
    expect(await findPartnerByKeyId(server.knex, 'pk_committed')).to.not.equal(undefined);
    const [entry] = await trailOf('pk_committed');
    expect(entry).to.deep.include({ actor: 'ann', action: 'partner.create', reason: 'onboarding', outcome: 'succeeded' });
  });

  it('rolls back a change whose action is refused after writing, and records it as refused only', async () => {
    const refused = await runOperatorAction(server.knex, { actor: 'ann' }, 'partner.create', 'pk_refused', async (trx) => {
      await create('pk_refused')(trx);
      throw new AppError(409, 'conflict', 'refused after the insert');
    }).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(AppError);
    expect(await findPartnerByKeyId(server.knex, 'pk_refused'), 'the insert rolled back').to.equal(undefined);
    const trail = await trailOf('pk_refused');
    expect(trail.map((e) => e.outcome)).to.deep.equal(['refused']);
    expect(trail[0].details).to.deep.equal({ error: { status: 409, code: 'conflict', message: 'refused after the insert' } });
  });

  it('records an unexpected failure as failed, with its message, and rethrows it', async () => {
    const failed = await runOperatorAction(server.knex, { actor: 'ann' }, 'partner.create', 'pk_failed', async (trx) => {
      await create('pk_failed')(trx);
      throw new Error('the node went away');
    }).catch((err: unknown) => err);
    expect((failed as Error).message).to.equal('the node went away');
    expect(await findPartnerByKeyId(server.knex, 'pk_failed')).to.equal(undefined);
    const trail = await trailOf('pk_failed');
    expect(trail.map((e) => [e.outcome, e.details])).to.deep.equal([['failed', { error: { message: 'the node went away' } }]]);
  });

  it('refuses, recording nothing, an empty actor or a missing reason where the action needs one', async () => {
    const act = async () => ({ value: undefined, details: {} });
    for (const [acting, action] of [
      [{ actor: '  ' }, 'partner.create'],
      [{ actor: 'ann\u0007' }, 'partner.create'],
      [{ actor: 'ann' }, 'partner.disable'],
      [{ actor: 'ann', reason: 'x'.repeat(2001) }, 'partner.create'],
    ] as const) {
      const err = await runOperatorAction(server.knex, acting, action, 'pk_unchecked', act).catch((e: unknown) => e);
      expect(err, JSON.stringify(acting)).to.be.instanceOf(AppError).and.have.property('status', 400);
    }
    expect(await trailOf('pk_unchecked')).to.deep.equal([]);
  });
});
