import { expect } from 'chai';
import {
  attributesOf,
  checkTransition,
  IllegalTransitionError,
  isAllowedTransition,
  STATUS_ATTRIBUTES,
  SWAP_STATUSES,
  type SwapStatus,
} from '../../../server/domain/swap-lifecycle.js';

// The allowed transitions as docs/architecture.md#lifecycle lists them, typed out again: the table in the code
// must equal it (the page's list and this one are kept the same by hand).
const DOCUMENTED_TRANSITIONS = `
waiting -> confirming | overdue | review | failed
overdue -> confirming | expired
confirming -> confirming | waiting | overdue | exchanging | accumulating | refunded | review | failed
accumulating -> exchanging | review
exchanging -> sending | refunded | review | failed
sending -> finished | failed | review
review -> exchanging | refunded | failed`;

const allowed = new Set(
  DOCUMENTED_TRANSITIONS.trim()
    .split('\n')
    .flatMap((line) => {
      const [from, to] = line.split(' -> ');
      return to.split(' | ').map((target) => `${from}->${target}`);
    }),
);

describe('swap lifecycle', () => {
  it('has the 11 statuses of docs/architecture.md#lifecycle', () => {
    expect(SWAP_STATUSES).to.have.members([
      'waiting',
      'confirming',
      'exchanging',
      'sending',
      'accumulating',
      'overdue',
      'review',
      'finished',
      'refunded',
      'expired',
      'failed',
    ]);
  });

  for (const from of SWAP_STATUSES) {
    for (const to of SWAP_STATUSES) {
      const expected = allowed.has(`${from}->${to}`);
      it(`${expected ? 'allows' : 'refuses'} ${from} -> ${to}`, () => {
        expect(isAllowedTransition(from, to)).to.equal(expected);
        if (expected) expect(() => checkTransition(from, to)).not.to.throw();
        else expect(() => checkTransition(from, to)).to.throw(IllegalTransitionError);
      });
    }
  }

  it('never lets a terminal status change', () => {
    const terminal = SWAP_STATUSES.filter((s) => STATUS_ATTRIBUTES[s].terminal);
    expect(terminal).to.have.members(['finished', 'refunded', 'expired', 'failed']);
    for (const from of terminal) for (const to of SWAP_STATUSES) expect(isAllowedTransition(from, to)).to.equal(false);
  });

  it('asks the customer to act on a waiting swap only once its deposit address exists', () => {
    expect(attributesOf('waiting', false).actionRequired).to.equal('none');
    expect(attributesOf('waiting', true).actionRequired).to.equal('customer');
    expect(attributesOf('confirming' as SwapStatus, false)).to.deep.equal(STATUS_ATTRIBUTES.confirming);
  });
});
