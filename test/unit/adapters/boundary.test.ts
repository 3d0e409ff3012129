import { rejection } from '../../support/rejection.js';
import { expect } from 'chai';
import {
  AnswerTooLargeError,
  createAnswerFaults,
  isUntrustedAnswer,
  MalformedAnswerError,
  messageOf,
  parseNodeAmount,
  publicReasonOf,
  readBoundedText,
  redactUrl,
  redactUrls,
  type AmountRule,
} from '../../../server/adapters/boundary.js';
import type { ChainScan, ChainWatcher, NetworkAdapters, ScanCursor, WatchFilter } from '../../../server/adapters/chain.js';

const bytes = (text: string) => new TextEncoder().encode(text);

/** A body of `chunks`, one per pull (highWaterMark 0: nothing is pulled before a read), recording pulls and a cancel. */
function streamed(chunks: Uint8Array[]) {
  const seen = { pulls: 0, cancelled: false };
  let next = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        seen.pulls++;
        if (next < chunks.length) controller.enqueue(chunks[next++]);
        else controller.close();
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, seen };
}

function refusal(run: () => unknown): MalformedAnswerError {
  try {
    run();
  } catch (err) {
    expect(err).to.be.instanceOf(MalformedAnswerError);
    expect((err as MalformedAnswerError).publicReason).to.equal('malformed answer');
    return err as MalformedAnswerError;
  }
  throw new Error('expected a MalformedAnswerError');
}

const BTC: AmountRule = { decimals: 8, sign: 'nonNegative' };
const OUTPUT: AmountRule = { decimals: 8, sign: 'positive' };
const SIGNED: AmountRule = { decimals: 8, sign: 'any' };

describe('chain boundary (adapters/boundary.ts)', () => {
  describe('readBoundedText(response, limit)', () => {
    it('returns a body under the limit whole, joined from its chunks (a character split across two chunks included)', async () => {
      const euro = bytes('€'); // three bytes
      const { stream } = streamed([bytes('{"result":'), bytes('"12'), euro.slice(0, 1), euro.slice(1), bytes('"}')]);
      expect(await readBoundedText(new Response(stream), 100)).to.equal('{"result":"12€"}');
    });

    it('accepts a body of exactly the limit', async () => {
      const { stream } = streamed([bytes('12345'), bytes('67890')]);
      expect(await readBoundedText(new Response(stream), 10)).to.equal('1234567890');
    });

    it('returns an empty string for a response without a body', async () => {
      expect(await readBoundedText(new Response(null, { status: 204 }), 10)).to.equal('');
    });

    it('refuses a declared Content-Length over the limit before reading a byte, and cancels the body', async () => {
      const { stream, seen } = streamed([bytes('tiny')]);
      const response = new Response(stream, { headers: { 'content-length': '1000' } });
      const err = await rejection(readBoundedText(response, 100));
      expect(err).to.be.instanceOf(AnswerTooLargeError);
      expect((err as AnswerTooLargeError).limitBytes).to.equal(100);
      expect((err as AnswerTooLargeError).publicReason).to.equal('answer too large');
      expect(seen.pulls).to.equal(0);
      expect(seen.cancelled).to.equal(true);
    });

    it('refuses a streamed body without Content-Length once it passes the limit, without reading it to its end', async () => {
      const chunks = Array.from({ length: 1000 }, () => new Uint8Array(64).fill(0x61));
      const { stream, seen } = streamed(chunks);
      const err = await rejection(readBoundedText(new Response(stream), 1000));
      expect(err).to.be.instanceOf(AnswerTooLargeError);
      expect(seen.cancelled).to.equal(true);
      expect(seen.pulls).to.be.below(20);
    });
  });

  describe('parseNodeAmount(value, what, rule)', () => {
    it('accepts plain decimals and gives them without trailing zeros', () => {
      expect(parseNodeAmount('0.1', 'amount', BTC)).to.equal('0.1');
      expect(parseNodeAmount('21000000.00000000', 'amount', BTC)).to.equal('21000000');
      expect(parseNodeAmount('0.00000001', 'amount', OUTPUT)).to.equal('0.00000001');
    });

    it('accepts a safe JSON integer', () => {
      expect(parseNodeAmount(5, 'amount', BTC)).to.equal('5');
    });

    it('accepts 0 as a balance (nonNegative)', () => {
      expect(parseNodeAmount('0', 'balance', BTC)).to.equal('0');
      expect(parseNodeAmount('0.00000000', 'balance', BTC)).to.equal('0');
      expect(parseNodeAmount(0, 'balance', BTC)).to.equal('0');
    });

    it('accepts a negative amount only with sign "any"', () => {
      expect(parseNodeAmount('-0.5', 'send', SIGNED)).to.equal('-0.5');
      refusal(() => parseNodeAmount('-0.5', 'send', BTC));
      refusal(() => parseNodeAmount('-0.5', 'send', OUTPUT));
    });

    for (const value of ['NaN', 'Infinity', '-Infinity', '1e400', '1e-8', '1E8', ' 1', '1 ', '', '+1', '01', '.5', '5.', '0x10', '1,5']) {
      it(`refuses the string ${JSON.stringify(value)}`, () => {
        refusal(() => parseNodeAmount(value, 'amount', BTC));
      });
    }

    const wrongTypes: Array<[string, unknown]> = [
      ['null', null],
      ['undefined', undefined],
      ['true', true],
      ['an object', {}],
      ['an array', ['1']],
      ['a float (1.5)', 1.5],
      ['an unsafe integer (2**60)', 2 ** 60],
      ['NaN (the number)', Number.NaN],
      ['Infinity (the number)', Number.POSITIVE_INFINITY],
      ['a bigint', 5n],
    ];
    for (const [name, value] of wrongTypes) {
      it(`refuses ${name}`, () => {
        refusal(() => parseNodeAmount(value, 'amount', BTC));
      });
    }

    it('refuses a negative balance (nonNegative)', () => {
      refusal(() => parseNodeAmount('-1', 'balance', BTC));
      refusal(() => parseNodeAmount(-1, 'balance', BTC));
    });

    it('refuses 0 as an output (positive)', () => {
      refusal(() => parseNodeAmount('0', 'output', OUTPUT));
      refusal(() => parseNodeAmount('0.0', 'output', OUTPUT));
    });

    it("refuses more decimal places than the coin's", () => {
      refusal(() => parseNodeAmount('0.000000001', 'amount', BTC));
      expect(parseNodeAmount('0.000000010', 'amount', BTC)).to.equal('0.00000001');
      refusal(() => parseNodeAmount('0.1', 'amount', { decimals: 0, sign: 'nonNegative' }));
    });

    it('refuses more than 20 integer digits, and accepts 20', () => {
      expect(parseNodeAmount('18446744073709551615', 'amount', { decimals: 0, sign: 'nonNegative' })).to.equal('18446744073709551615');
      refusal(() => parseNodeAmount('123456789012345678901', 'amount', BTC));
      refusal(() => parseNodeAmount('-123456789012345678901', 'amount', SIGNED));
    });

    it('names `what` in its message and keeps the rest of the message within 100 characters for a 10 MB value', () => {
      const huge = '9'.repeat(10 * 1024 * 1024);
      const err = refusal(() => parseNodeAmount(huge, 'listsinceblock amount', BTC));
      expect(err.message).to.contain('listsinceblock amount');
      expect(err.message.length).to.be.at.most('listsinceblock amount'.length + 100);
      const junk = refusal(() => parseNodeAmount('x'.repeat(10 * 1024 * 1024), 'balance', BTC));
      expect(junk.message).to.contain('balance');
      expect(junk.message.length).to.be.at.most('balance'.length + 100);
    });
  });

  describe('redactUrl(raw) and redactUrls(text)', () => {
    it('drops the credentials and an API key in the path, and keeps the host and the version', () => {
      const shown = redactUrl('https://user:pass@mainnet.infura.io/v3/0123456789abcdef0123456789abcdef');
      expect(shown).to.equal('https://mainnet.infura.io/v3/***');
      expect(shown).not.to.contain('user');
      expect(shown).not.to.contain('pass');
      expect(shown).not.to.contain('0123456789abcdef');
    });

    it('replaces a query string by ?***', () => {
      const shown = redactUrl('https://api.example.com/prices?apikey=SECRET&pair=BTCUSD');
      expect(shown).to.equal('https://api.example.com/prices?***');
      expect(shown).not.to.contain('SECRET');
    });

    it('keeps the port and a wallet name after /wallet/, and drops the credentials', () => {
      const shown = redactUrl('http://rpc:pw@10.0.0.5:9332/wallet/hot');
      expect(shown).to.equal('http://10.0.0.5:9332/wallet/hot');
      expect(shown).not.to.contain('pw');
      expect(shown).not.to.contain('rpc:');
    });

    it('keeps a word segment (json_rpc) and a bare host', () => {
      expect(redactUrl('http://127.0.0.1:11212/json_rpc')).to.equal('http://127.0.0.1:11212/json_rpc');
      expect(redactUrl('https://node.example')).to.equal('https://node.example');
    });

    it('hides a key-looking segment that is not after /wallet/ (digits, or too long for a word)', () => {
      expect(redactUrl('https://eth.example/rpc/ab12cd34')).to.equal('https://eth.example/rpc/***');
      expect(redactUrl('https://eth.example/' + 'k'.repeat(40))).to.equal('https://eth.example/***');
      expect(redactUrl('https://eth.example/wallet/hot/key123')).to.equal('https://eth.example/wallet/hot/***');
    });

    it('gives [a URL] for a URL it cannot parse', () => {
      expect(redactUrl('not a url')).to.equal('[a URL]');
      expect(redactUrl('http://exa mple.com/x')).to.equal('[a URL]');
    });

    it('redacts every URL in a viem-style message', () => {
      const message =
        'HTTP request failed.\n\nURL: https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef\n' +
        'Request body: {"method":"eth_blockNumber","params":[]}\n' +
        'Retried from http://rpc:hunter2@10.0.0.5:8545/k9x7Q2pZ and "https://eth.example/rpc?apikey=SECRET".';
      const shown = redactUrls(message);
      expect(shown).to.contain('URL: https://mainnet.infura.io/v3/***\n');
      expect(shown).to.contain('Request body: {"method":"eth_blockNumber","params":[]}');
      expect(shown).to.contain('http://10.0.0.5:8545/***');
      expect(shown).to.contain('"https://eth.example/rpc?***"');
      for (const secret of ['0123456789abcdef', 'hunter2', 'rpc:', 'k9x7Q2pZ', 'SECRET']) expect(shown).not.to.contain(secret);
    });

    it('removes a password that holds a bracket or a quote whole, in running text', () => {
      expect(redactUrls('URL: http://user:pa(ss@10.0.0.5:8545/ end')).to.equal('URL: http://10.0.0.5:8545 end');
      const shown = redactUrls("failed (http://rpc:it's)x@10.0.0.5:9332/wallet/hot) retrying");
      expect(shown).to.equal('failed (http://10.0.0.5:9332/wallet/hot) retrying');
      for (const part of ['rpc', "it's", 'x@']) expect(shown).not.to.contain(part);
    });

    it('returns text without :// unchanged', () => {
      const text = 'connect ECONNREFUSED 127.0.0.1:8545 (user:pass@host)';
      expect(redactUrls(text)).to.equal(text);
    });
  });

  describe('publicReasonOf(err) and isUntrustedAnswer(err)', () => {
    it("gives the error's own publicReason", () => {
      expect(publicReasonOf(new MalformedAnswerError('x'))).to.equal('malformed answer');
      expect(publicReasonOf(new AnswerTooLargeError(10))).to.equal('answer too large');
      expect(publicReasonOf(Object.assign(new Error('x'), { publicReason: 'tip too old' }))).to.equal('tip too old');
    });

    it('finds a publicReason in the cause chain', () => {
      expect(publicReasonOf(new Error('x', { cause: new MalformedAnswerError('y') }))).to.equal('malformed answer');
      expect(publicReasonOf(new Error('a', { cause: new Error('b', { cause: new AnswerTooLargeError(1) }) }))).to.equal('answer too large');
    });

    it('gives node unreachable for a plain Error, a string, undefined and null', () => {
      expect(publicReasonOf(new Error('x'))).to.equal('node unreachable');
      expect(publicReasonOf('malformed answer')).to.equal('node unreachable');
      expect(publicReasonOf(undefined)).to.equal('node unreachable');
      expect(publicReasonOf(null)).to.equal('node unreachable');
      expect(publicReasonOf(Object.assign(new Error('x'), { publicReason: 42 }))).to.equal('node unreachable');
    });

    it('calls malformed and too large answers untrusted, and nothing else', () => {
      expect(isUntrustedAnswer(new MalformedAnswerError('x'))).to.equal(true);
      expect(isUntrustedAnswer(new Error('x', { cause: new AnswerTooLargeError(1) }))).to.equal(true);
      expect(isUntrustedAnswer(new Error('x'))).to.equal(false);
      expect(isUntrustedAnswer(Object.assign(new Error('x'), { publicReason: 'node error' }))).to.equal(false);
      expect(isUntrustedAnswer(undefined)).to.equal(false);
    });
  });

  describe('createAnswerFaults().watch(network, adapters)', () => {
    const SCAN: ChainScan = { tip: { height: 1, hash: 'h1' }, position: '1', outputs: [], removed: [], payouts: [] };
    const watchAll: WatchFilter = async (candidates) => new Set(candidates);

    /** Adapters whose watcher's scans do what `next` says, one entry per scan. */
    function adaptersScanning(next: Array<() => Promise<ChainScan>>) {
      const calls: Array<ScanCursor | null> = [];
      const watcher: ChainWatcher = {
        idleScanMs: 1234,
        busyScanMs: 567,
        tip: async () => ({ height: 1, hash: 'h1', time: new Date(0) }),
        scan: async (cursor) => {
          calls.push(cursor);
          const step = next.shift();
          if (!step) throw new Error('no scan planned');
          return step();
        },
      };
      const adapters = { watcher, payoutConfirmations: 3 } as unknown as NetworkAdapters;
      return { adapters, calls };
    }

    it('marks the network with malformed answer and a redacted detail when a scan gets a malformed answer, and rethrows', async () => {
      const faults = createAnswerFaults();
      const malformed = new MalformedAnswerError('eth_blockNumber = "NaN" from https://u:p@mainnet.infura.io/v3/0123456789abcdef0123');
      const { adapters, calls } = adaptersScanning([() => Promise.reject(malformed)]);
      const watched = faults.watch('ETH', adapters);
      expect(await rejection(watched.watcher.scan(null, watchAll))).to.equal(malformed);
      expect(calls).to.deep.equal([null]);
      const fault = faults.current('ETH');
      expect(fault?.reason).to.equal('malformed answer');
      expect(fault?.detail).to.equal('eth_blockNumber = "NaN" from https://mainnet.infura.io/v3/***');
      expect(faults.current('BTC')).to.equal(undefined);
    });

    it('marks the network with answer too large for an error caused by an answer too large', async () => {
      const faults = createAnswerFaults();
      const tooLarge = new Error('HTTP request failed', { cause: new AnswerTooLargeError(4) });
      const { adapters } = adaptersScanning([() => Promise.reject(tooLarge)]);
      await rejection(faults.watch('ETH', adapters).watcher.scan(null, watchAll));
      expect(faults.current('ETH')?.reason).to.equal('answer too large');
      expect(faults.current('ETH')?.detail).to.contain('HTTP request failed');
    });

    it('does not mark the network for a scan that fails on a plain error, which still reaches the caller', async () => {
      const faults = createAnswerFaults();
      const down = new Error('connect ECONNREFUSED');
      const { adapters } = adaptersScanning([() => Promise.reject(down)]);
      expect(await rejection(faults.watch('ETH', adapters).watcher.scan(null, watchAll))).to.equal(down);
      expect(faults.current('ETH')).to.equal(undefined);
    });

    it('clears the mark at the next successful scan, whose result it passes through', async () => {
      const faults = createAnswerFaults();
      const cursor: ScanCursor = { tip: { height: 0, hash: 'h0' }, position: '0' };
      const { adapters, calls } = adaptersScanning([() => Promise.reject(new MalformedAnswerError('bad')), async () => SCAN]);
      const watched = faults.watch('ETH', adapters);
      await rejection(watched.watcher.scan(cursor, watchAll));
      expect(faults.current('ETH')).not.to.equal(undefined);
      expect(await watched.watcher.scan(cursor, watchAll)).to.equal(SCAN);
      expect(faults.current('ETH')).to.equal(undefined);
      expect(calls).to.deep.equal([cursor, cursor]);
    });

    it('keeps the other adapters and the watcher’s other members as they are', async () => {
      const faults = createAnswerFaults();
      const { adapters } = adaptersScanning([]);
      const watched = faults.watch('ETH', adapters);
      expect(watched.payoutConfirmations).to.equal(3);
      expect(watched.watcher.idleScanMs).to.equal(1234);
      expect(watched.watcher.busyScanMs).to.equal(567);
      expect((await watched.watcher.tip()).hash).to.equal('h1');
    });
  });

  describe('messageOf(err)', () => {
    it('joins the messages of the error and its causes', () => {
      const err = new Error('HTTP request failed', { cause: new Error('fetch failed', { cause: new Error('ECONNRESET') }) });
      expect(messageOf(err)).to.equal('HTTP request failed: fetch failed: ECONNRESET');
    });

    it('gives a thrown string as it is', () => {
      expect(messageOf('boom')).to.equal('boom');
    });

    it('replaces control characters by a space', () => {
      const shown = messageOf(new Error('line one\n\nline two\u0000\u001b[31mred\u007f'));
      expect(shown).to.equal('line one line two [31mred ');
      expect([...shown].filter((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)).to.deep.equal([]);
    });

    it('is at most 1000 characters', () => {
      expect(messageOf(new Error('x'.repeat(10_000), { cause: new Error('y'.repeat(10_000)) }))).to.have.length(1000);
    });
  });
});
