import { rejection } from '../../support/rejection.js';
import { expect } from 'chai';
import { AnswerTooLargeError, MalformedAnswerError, publicReasonOf } from '../../../server/adapters/boundary.js';
import { createEvmClient } from '../../../server/adapters/ethereum/index.js';
import { checkAnswer, createCheckedFetch, type FetchFn } from '../../../server/adapters/ethereum/transport.js';

const NODE_URL = 'http://node.example:8545/';
const HASH = '0x' + 'ab'.repeat(32);

/** A fetch that answers `text` with `status`, and records what it was asked. */
function answering(text: string, status = 200, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const asked: Array<{ input: unknown; init?: RequestInit }> = [];
  const fetch: FetchFn = async (input, init) => {
    asked.push({ input, init });
    return new Response(text, { status, headers });
  };
  return { fetch, asked };
}

const request = (method: string, id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params: [] });
const body = (method: string) => JSON.stringify(request(method));
const answer = (result: unknown, id: unknown = 1) => JSON.stringify({ jsonrpc: '2.0', id, result });

/** What a checked fetch over a fake answering `text` makes of a call to `method`. */
function ask(method: string, text: string, status = 200) {
  const fake = answering(text, status);
  return { response: createCheckedFetch(fake.fetch)(NODE_URL, { method: 'POST', body: body(method) }), asked: fake.asked };
}

async function malformed(promise: Promise<unknown>): Promise<MalformedAnswerError> {
  const err = await rejection(promise);
  expect(err).to.be.instanceOf(MalformedAnswerError);
  return err as MalformedAnswerError;
}

const block = (fields: Record<string, unknown> = {}) => ({
  number: '0x10',
  hash: HASH,
  timestamp: '0x5f5e100',
  transactions: [],
  ...fields,
});

describe('EVM node answers, bounded and checked (adapters/ethereum/transport.ts)', () => {
  describe('createCheckedFetch(fetch)', () => {
    it('passes a valid eth_blockNumber answer on with the same text, status and content type, to the same URL and request', async () => {
      const text = answer('0x10');
      const { response, asked } = ask('eth_blockNumber', text);
      const passed = await response;
      expect(await passed.text()).to.equal(text);
      expect(passed.status).to.equal(200);
      expect(passed.headers.get('content-type')).to.equal('application/json');
      expect(asked).to.have.length(1);
      expect(asked[0].input).to.equal(NODE_URL);
      expect(asked[0].init?.body).to.equal(body('eth_blockNumber'));
    });

    const badQuantities: Array<[string, string]> = [
      ['1e400 (a JSON number out of range)', '{"jsonrpc":"2.0","id":1,"result":1e400}'],
      ['the string NaN', answer('NaN')],
      ['-0x1', answer('-0x1')],
      ['the number 16', answer(16)],
      ['0x with 65 hex digits (over 256 bits)', answer('0x1' + '0'.repeat(64))],
      ['a bare 0x', answer('0x')],
      ['null', answer(null)],
    ];
    for (const [name, text] of badQuantities) {
      it(`refuses ${name} as eth_blockNumber's result`, async () => {
        await malformed(ask('eth_blockNumber', text).response);
      });
    }

    it('accepts 64 hex digits as a quantity', async () => {
      const text = answer('0x' + 'f'.repeat(64));
      expect(await (await ask('eth_blockNumber', text).response).text()).to.equal(text);
    });

    it('refuses null as eth_getBalance and eth_chainId results', async () => {
      await malformed(ask('eth_getBalance', answer(null)).response);
      await malformed(ask('eth_chainId', answer(null)).response);
    });

    it('refuses a block without a timestamp, or without its transactions', async () => {
      const { timestamp: _timestamp, ...withoutTime } = block();
      await malformed(ask('eth_getBlockByNumber', answer(withoutTime)).response);
      await malformed(ask('eth_getBlockByNumber', answer(block({ timestamp: 12 }))).response);
      await malformed(ask('eth_getBlockByHash', answer(block({ transactions: null }))).response);
    });

    it('refuses a block that is not an object', async () => {
      await malformed(ask('eth_getBlockByNumber', answer('0x10')).response);
      await malformed(ask('eth_getBlockByNumber', answer([block()])).response);
    });

    it('passes a block, a pending block (number null) and null (an unknown block)', async () => {
      for (const result of [block(), block({ number: null }), null]) {
        const text = answer(result);
        expect(await (await ask('eth_getBlockByNumber', text).response).text()).to.equal(text);
      }
    });

    it('refuses eth_getLogs answered with something else than a list', async () => {
      await malformed(ask('eth_getLogs', answer({ logs: [] })).response);
      await malformed(ask('eth_getLogs', answer(null)).response);
      const text = answer([]);
      expect(await (await ask('eth_getLogs', text).response).text()).to.equal(text);
    });

    it('refuses eth_sendRawTransaction answered with something else than a transaction hash', async () => {
      await malformed(ask('eth_sendRawTransaction', answer('0x1234')).response);
      await malformed(ask('eth_sendRawTransaction', answer(true)).response);
      const text = answer(HASH);
      expect(await (await ask('eth_sendRawTransaction', text).response).text()).to.equal(text);
    });

    it('refuses eth_call answered with something else than hex data', async () => {
      await malformed(ask('eth_call', answer('0x123')).response);
      await malformed(ask('eth_call', answer(12)).response);
      const text = answer('0x');
      expect(await (await ask('eth_call', text).response).text()).to.equal(text);
    });

    it('refuses an HTTP 200 answer that is not JSON, naming the method', async () => {
      const err = await malformed(ask('eth_blockNumber', '<html>Bad gateway</html>').response);
      expect(err.message).to.contain('eth_blockNumber');
      expect(publicReasonOf(err)).to.equal('malformed answer');
    });

    it('refuses JSON that is not a JSON-RPC answer (neither result nor error)', async () => {
      await malformed(ask('eth_blockNumber', JSON.stringify({ jsonrpc: '2.0', id: 1 })).response);
      await malformed(ask('eth_blockNumber', '"0x10"').response);
      await malformed(ask('eth_blockNumber', 'null').response);
    });

    it('passes a JSON-RPC error answer on unchecked, for viem to read', async () => {
      const text = JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x' } });
      expect(await (await ask('eth_blockNumber', text).response).text()).to.equal(text);
    });

    it('passes the body of a non-200 status on unchecked, with its status', async () => {
      const passed = await ask('eth_blockNumber', '<html>502 Bad Gateway</html>', 502).response;
      expect(passed.status).to.equal(502);
      expect(await passed.text()).to.equal('<html>502 Bad Gateway</html>');
    });

    it('does not check the result of a method it has no rule for', async () => {
      const text = answer({ anything: 'NaN' });
      expect(await (await ask('net_version', text).response).text()).to.equal(text);
    });

    describe('a batch of requests', () => {
      const batch = JSON.stringify([request('eth_blockNumber', 1), request('eth_getLogs', 2), request('eth_sendRawTransaction', 3)]);
      const check = (answers: unknown[]) => {
        const fake = answering(JSON.stringify(answers));
        return createCheckedFetch(fake.fetch)(NODE_URL, { method: 'POST', body: batch });
      };

      it('checks each answer by the request of its id, in any order', async () => {
        const answers = [
          { jsonrpc: '2.0', id: 3, result: HASH },
          { jsonrpc: '2.0', id: 1, result: '0x10' },
          { jsonrpc: '2.0', id: 2, result: [] },
        ];
        expect(await (await check(answers)).text()).to.equal(JSON.stringify(answers));
      });

      it('refuses the batch when one answer breaks the rule of its own request', async () => {
        // A list is right for eth_getLogs (id 2) but not for eth_blockNumber (id 1).
        await malformed(
          check([
            { jsonrpc: '2.0', id: 2, result: '0x10' },
            { jsonrpc: '2.0', id: 1, result: [] },
          ]),
        );
        await malformed(
          check([
            { jsonrpc: '2.0', id: 1, result: '0x10' },
            { jsonrpc: '2.0', id: 2, result: [] },
            { jsonrpc: '2.0', id: 3, result: 'NaN' },
          ]),
        );
      });

      it('passes an error answer in a batch unchecked', async () => {
        const answers = [
          { jsonrpc: '2.0', id: 1, result: '0x10' },
          { jsonrpc: '2.0', id: 2, error: { code: -32005, message: 'too many logs' } },
        ];
        expect(await (await check(answers)).text()).to.equal(JSON.stringify(answers));
      });
    });

    describe('size', () => {
      const FIVE_MB = 5 * 1024 * 1024;

      it('refuses a 5 MB answer to eth_blockNumber (limit 4 MB)', async () => {
        const text = answer('0x10').replace('}', ' '.repeat(FIVE_MB) + '}');
        const err = await rejection(ask('eth_blockNumber', text).response);
        expect(err).to.be.instanceOf(AnswerTooLargeError);
        expect(publicReasonOf(err)).to.equal('answer too large');
      });

      it('passes a 5 MB answer to eth_getLogs (the bulk limit, 32 MB)', async () => {
        const log = { address: '0x' + '11'.repeat(20), topics: [HASH], data: '0x' + '00'.repeat(64), blockNumber: '0x10' };
        const logs = Array.from({ length: Math.ceil(FIVE_MB / JSON.stringify(log).length) }, () => log);
        const text = answer(logs);
        expect(text.length).to.be.above(FIVE_MB);
        expect(await (await ask('eth_getLogs', text).response).text()).to.equal(text);
      });

      it('refuses an answer over 32 MB even to eth_getLogs', async () => {
        const text = answer([]).replace('}', ' '.repeat(33 * 1024 * 1024) + '}');
        expect(await rejection(ask('eth_getLogs', text).response)).to.be.instanceOf(AnswerTooLargeError);
      });
    });
  });

  describe('checkAnswer(requests, text)', () => {
    it('checks a single answer by the only request, whatever its id', () => {
      expect(() => checkAnswer([{ id: 7, method: 'eth_blockNumber' }], answer('NaN', 8))).to.throw(MalformedAnswerError);
      expect(() => checkAnswer([{ id: 7, method: 'eth_blockNumber' }], answer('0x1', 8))).not.to.throw();
    });

    it('refuses text that is not JSON even without a known request', () => {
      expect(() => checkAnswer([], 'not json')).to.throw(MalformedAnswerError, 'a request');
    });
  });

  describe('through viem (createEvmClient)', () => {
    it('rejects getBlockNumber answered with "NaN", and the public reason found through viem’s wrapping is malformed answer', async () => {
      let calls = 0;
      const fake: FetchFn = async (_input, init) => {
        calls++;
        const { id } = JSON.parse(String(init?.body)) as { id: number };
        return new Response(`{"jsonrpc":"2.0","id":${id},"result":"NaN"}`, {
          status: 200,
          headers: { 'content-type': 'application/json' },
        });
      };
      const client = createEvmClient('http://127.0.0.1:1', fake);
      const err = await rejection(client.getBlockNumber());
      expect(err).not.to.be.instanceOf(MalformedAnswerError); // viem wraps it
      expect(publicReasonOf(err)).to.equal('malformed answer');
      expect(calls).to.be.at.least(1);
    });

    it('reads a valid answer through the checked fetch', async () => {
      const fake: FetchFn = async (_input, init) => {
        const { id } = JSON.parse(String(init?.body)) as { id: number };
        return new Response(answer('0x2a', id), { status: 200, headers: { 'content-type': 'application/json' } });
      };
      expect(await createEvmClient('http://127.0.0.1:1', fake).getBlockNumber()).to.equal(42n);
    });
  });
});
