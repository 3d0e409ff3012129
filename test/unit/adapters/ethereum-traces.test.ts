import { expect } from 'chai';
import type pino from 'pino';
import { numberToHex, type PublicClient } from 'viem';
import {
  createTraceReader,
  isMethodUnavailable,
  transfersOfCallFrames,
  transfersOfParityTraces,
} from '../../../server/adapters/ethereum/traces.js';

const TX = '0xdc14f35651a7fb241b259fa13c375579b4092ed754e3be4d7f6e4bdb51810e8c';
const TX2 = '0x018c899dd0d9d9721b8332eca508dd122dde5427b267c49fe2c86f589c3222ba';
const BLOCK = '0x4483b59e2f3df230cae3ce2a8754cde8efb3de6e4c2b514ffc536b80472775ca';
const CUSTOMER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const CONTRACT = '0x8464135c8F25Da09e49BC8782676a84730C318bC';
const DEPOSIT = '0x000000000000000000000000000000000000dEaD';
const OTHER = '0x000000000000000000000000000000000000bEEF';
const wei = (value: bigint) => numberToHex(value);

/** A parity-style trace (as anvil's trace_block answers). */
const parity = (traceAddress: number[], action: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'call',
  action: { callType: 'call', value: '0x0', ...action },
  blockHash: BLOCK,
  result: { gasUsed: '0x0', output: '0x' },
  traceAddress,
  transactionHash: TX,
  ...extra,
});
/** The top-level frame: the customer calls the contract with 1 ETH. */
const top = parity([], { from: CUSTOMER, to: CONTRACT, value: wei(10n ** 18n) });
/** The contract passes 1 ETH on to the deposit address. */
const inner = parity([0], { from: CONTRACT, to: DEPOSIT, value: wei(10n ** 18n) });

describe('ethereum call traces', () => {
  describe('transfersOfParityTraces(traces)', () => {
    it('reports a contract call that pays value, from the contract, at position 0, with the block the traces name', () => {
      expect(transfersOfParityTraces([top, inner])).to.deep.equal({
        transfers: [{ txHash: TX, position: 0, from: CONTRACT, to: DEPOSIT, value: 10n ** 18n }],
        blockHash: BLOCK,
      });
    });

    it('does not report the transaction itself (its value is the top-level output)', () => {
      expect(transfersOfParityTraces([top]).transfers).to.deep.equal([]);
    });

    it('reports nothing of a transaction that reverted, though its inner call shows no error of its own', () => {
      expect(transfersOfParityTraces([{ ...top, error: 'Reverted' }, inner]).transfers).to.deep.equal([]);
    });

    it('skips a failed call and its children, and still counts them in the positions of the ones after', () => {
      const failed = parity([0], { from: CONTRACT, to: OTHER, value: wei(5n) }, { error: 'out of gas' });
      const child = parity([0, 0], { from: OTHER, to: DEPOSIT, value: wei(2n) });
      const after = parity([1], { from: CONTRACT, to: DEPOSIT, value: wei(3n) });
      expect(transfersOfParityTraces([top, failed, child, after]).transfers).to.deep.equal([
        { txHash: TX, position: 2, from: CONTRACT, to: DEPOSIT, value: 3n },
      ]);
    });

    it('does not count delegate, static or code calls, nor calls without value', () => {
      const frames = ['delegatecall', 'staticcall', 'callcode'].map((callType, i) =>
        parity([i], { callType, from: CONTRACT, to: DEPOSIT, value: wei(7n) }),
      );
      const zero = parity([3], { from: CONTRACT, to: DEPOSIT, value: '0x0' });
      const paid = parity([4], { from: CONTRACT, to: DEPOSIT, value: wei(1n) });
      expect(transfersOfParityTraces([top, ...frames, zero, paid]).transfers).to.deep.equal([
        { txHash: TX, position: 0, from: CONTRACT, to: DEPOSIT, value: 1n },
      ]);
    });

    it('reports a SELFDESTRUCT from the destroyed contract to its beneficiary', () => {
      const destroyed = {
        type: 'suicide',
        action: { address: CONTRACT.toLowerCase(), refundAddress: DEPOSIT.toLowerCase(), balance: wei(5n * 10n ** 17n) },
        blockHash: BLOCK,
        result: null,
        traceAddress: [0],
        transactionHash: TX,
      };
      expect(transfersOfParityTraces([top, destroyed]).transfers).to.deep.equal([
        { txHash: TX, position: 0, from: CONTRACT, to: DEPOSIT, value: 5n * 10n ** 17n },
      ]);
    });

    it('numbers each transaction from 0 and ignores block rewards', () => {
      const reward = { type: 'reward', action: { author: DEPOSIT, value: wei(2n) }, traceAddress: [], transactionHash: null };
      const second = [
        { ...top, transactionHash: TX2 },
        { ...inner, transactionHash: TX2 },
      ];
      expect(transfersOfParityTraces([top, inner, ...second, reward]).transfers.map((t) => [t.txHash, t.position])).to.deep.equal([
        [TX, 0],
        [TX2, 0],
      ]);
    });
  });

  describe('transfersOfCallFrames(results)', () => {
    const frame = (type: string, from: string, to: string, value: bigint, extra: Record<string, unknown> = {}) => ({
      type,
      from,
      to,
      value: wei(value),
      ...extra,
    });

    it('reports the same transfer, at the same position, as the parity traces of the same transaction (and names no block)', () => {
      const result = { ...frame('CALL', CUSTOMER, CONTRACT, 10n ** 18n), calls: [frame('CALL', CONTRACT, DEPOSIT, 10n ** 18n)] };
      expect(transfersOfCallFrames([{ txHash: TX, result }])).to.deep.equal({
        transfers: transfersOfParityTraces([top, inner]).transfers,
        blockHash: null,
      });
    });

    it('numbers nested frames depth first, skips reverted subtrees and counts them, and reports a SELFDESTRUCT', () => {
      const result = {
        ...frame('CALL', CUSTOMER, CONTRACT, 0n),
        calls: [
          { ...frame('CALL', CONTRACT, OTHER, 5n, { error: 'execution reverted' }), calls: [frame('CALL', OTHER, DEPOSIT, 2n)] },
          frame('DELEGATECALL', CONTRACT, OTHER, 9n),
          frame('SELFDESTRUCT', CONTRACT, DEPOSIT, 4n),
        ],
      };
      expect(transfersOfCallFrames([{ txHash: TX, result }]).transfers).to.deep.equal([
        { txHash: TX, position: 2, from: CONTRACT, to: DEPOSIT, value: 4n },
      ]);
    });

    it('reports nothing of a transaction that reverted', () => {
      const result = {
        ...frame('CALL', CUSTOMER, CONTRACT, 1n, { error: 'execution reverted' }),
        calls: [frame('CALL', CONTRACT, DEPOSIT, 1n)],
      };
      expect(transfersOfCallFrames([{ txHash: TX, result }]).transfers).to.deep.equal([]);
    });
  });

  describe('isMethodUnavailable(err)', () => {
    const cases: Array<[string, unknown, boolean]> = [
      ['a JSON-RPC method-not-found code', { code: -32601, message: 'Method not found' }, true],
      ['a method-not-supported code (EIP-1474)', { code: -32004, message: 'x' }, true],
      ['a provider that words it', { code: -32000, message: 'the method trace_block does not exist/is not available' }, true],
      ['the code deep in the cause', { message: 'request failed', cause: { cause: { code: -32601 } } }, true],
      ['a failure to trace one block', { code: -32000, message: 'required historical state unavailable' }, false],
      ['a timeout', { name: 'TimeoutError', message: 'The request took too long to respond.' }, false],
    ];
    for (const [what, err, expected] of cases) {
      it(`should read ${what} as ${expected ? 'unavailable' : 'something else'}`, () => {
        expect(isMethodUnavailable(err)).to.equal(expected);
      });
    }
  });

  describe('createTraceReader(options)', () => {
    /** A node that answers each method with `answers[method]` (an error is thrown), recording every call. */
    function nodeWith(answers: Record<string, unknown>) {
      const calls: string[] = [];
      const client = {
        async request({ method }: { method: string }) {
          calls.push(method);
          const answer = answers[method] ?? { code: -32601, message: 'Method not found' };
          if (answer instanceof Error || (typeof answer === 'object' && answer !== null && 'code' in answer)) throw answer;
          return answer;
        },
      } as unknown as PublicClient;
      return { client, calls };
    }
    /** A logger that keeps its lines (level and message). */
    const logger = () => {
      const lines: Array<[string, string]> = [];
      const at = (level: string) => ((_: unknown, msg?: string) => void lines.push([level, msg ?? ''])) as unknown as pino.LogFn;
      return { lines, info: at('info'), warn: at('warn') };
    };
    const callFrames = [
      {
        txHash: TX,
        result: {
          type: 'CALL',
          from: CUSTOMER,
          to: CONTRACT,
          value: '0x1',
          calls: [{ type: 'CALL', from: CONTRACT, to: DEPOSIT, value: '0x1' }],
        },
      },
    ];

    it('reads trace_block when the node serves it', async () => {
      const { client, calls } = nodeWith({ trace_block: [top, inner] });
      const reader = createTraceReader({ client });
      expect((await reader.transfersIn(3))?.transfers).to.have.length(1);
      expect(reader.method()).to.equal('trace_block');
      expect(calls).to.deep.equal(['trace_block']);
    });

    it('falls back to debug_traceBlockByNumber when trace_block is not found, and keeps it', async () => {
      const { client, calls } = nodeWith({ debug_traceBlockByNumber: callFrames });
      const reader = createTraceReader({ client });
      expect((await reader.transfersIn(3))?.transfers).to.have.length(1);
      expect((await reader.transfersIn(4))?.transfers).to.have.length(1);
      expect(reader.method()).to.equal('debug_traceBlockByNumber');
      expect(calls).to.deep.equal(['trace_block', 'debug_traceBlockByNumber', 'debug_traceBlockByNumber']);
    });

    it('says once that the node serves no traces, and asks it no more', async () => {
      const { client, calls } = nodeWith({});
      const log = logger();
      const reader = createTraceReader({ client, logger: log });
      expect(await reader.transfersIn(3)).to.equal(null);
      expect(await reader.transfersIn(4)).to.equal(null);
      expect(reader.method()).to.equal('none');
      expect(calls).to.deep.equal(['trace_block', 'debug_traceBlockByNumber']);
      expect(log.lines.filter(([level]) => level === 'warn')).to.have.length(1);
      expect(log.lines[0]![1]).to.match(/serves no call traces/);
    });

    it('asks nothing with traces off', async () => {
      const { client, calls } = nodeWith({ trace_block: [top, inner] });
      const reader = createTraceReader({ client, choice: 'off' });
      expect(await reader.transfersIn(3)).to.equal(null);
      expect(calls).to.deep.equal([]);
    });

    it('reads a block without traces when the node refuses to trace it, and throws when the node does not answer', async () => {
      const refusing = createTraceReader({ client: nodeWith({ trace_block: { code: -32000, message: 'missing trie node' } }).client });
      expect(await refusing.transfersIn(3)).to.equal(null);
      const timeout = Object.assign(new Error('The request took too long to respond.'), { name: 'TimeoutError' });
      const silent = createTraceReader({ client: nodeWith({ trace_block: timeout }).client });
      const err = await silent.transfersIn(3).catch((e: unknown) => e);
      expect(err).to.equal(timeout);
    });
  });
});
