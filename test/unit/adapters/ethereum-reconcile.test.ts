import { expect } from 'chai';
import { reconcileNative, type NativeReconcileInput } from '../../../server/adapters/ethereum/reconcile.js';

const ETH = 10n ** 18n;

describe('reconcileNative(input)', () => {
  /** One deposit of 1 ETH at block 10, the ledger complete through block 12, nothing else: all explained. */
  const base: NativeReconcileInput = {
    ledgerHeight: 12,
    balanceAtLedger: ETH,
    nowHeight: 14,
    balanceNow: ETH,
    inflows: [{ value: ETH, height: 10 }],
    outflows: [],
    held: 0n,
  };

  const cases: Array<[string, Partial<NativeReconcileInput>, { explained: bigint; unexplained: bigint; movable: bigint }]> = [
    ['explains a balance its outputs brought, and lets all of it move', {}, { explained: ETH, unexplained: 0n, movable: ETH }],
    [
      'finds value that no output explains, and keeps it out of what may move',
      { balanceAtLedger: ETH + 3n, balanceNow: ETH + 3n },
      { explained: ETH, unexplained: 3n, movable: ETH },
    ],
    [
      'does not find again what is already held, and still keeps it out',
      { balanceAtLedger: ETH + 3n, balanceNow: ETH + 3n, held: 3n },
      { explained: ETH, unexplained: 0n, movable: ETH },
    ],
    [
      'subtracts what earlier sweeps moved and the gas they paid',
      { balanceAtLedger: 5n, balanceNow: 5n, outflows: [{ value: ETH - 5n, height: 11 }] },
      { explained: 5n, unexplained: 0n, movable: 5n },
    ],
    [
      'leaves value that arrived after the ledger block out of both (the watcher may record it yet)',
      { balanceNow: ETH + 9n },
      { explained: ETH, unexplained: 0n, movable: ETH },
    ],
    [
      'counts a top-up mined after the ledger block in what may move, not in what the ledger block explains',
      {
        balanceAtLedger: ETH,
        balanceNow: ETH + 4n,
        inflows: [
          { value: ETH, height: 10 },
          { value: 4n, height: 13 },
        ],
      },
      { explained: ETH, unexplained: 0n, movable: ETH + 4n },
    ],
    [
      'moves no more than the balance less what is held when the balance is short of the ledger',
      { balanceAtLedger: ETH - 7n, balanceNow: ETH - 7n, held: 2n },
      { explained: ETH, unexplained: 0n, movable: ETH - 9n },
    ],
    [
      'moves nothing when all there is is held',
      { balanceAtLedger: 3n, balanceNow: 3n, inflows: [], held: 3n },
      { explained: 0n, unexplained: 0n, movable: 0n },
    ],
    [
      'finds a whole balance unexplained when the ledger has no output',
      { balanceAtLedger: 8n, balanceNow: 8n, inflows: [] },
      { explained: 0n, unexplained: 8n, movable: 0n },
    ],
  ];
  for (const [what, change, expected] of cases) {
    it(`${what}`, () => {
      expect(reconcileNative({ ...base, ...change })).to.deep.equal(expected);
    });
  }
});
