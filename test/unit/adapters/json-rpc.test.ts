import { rejection } from '../../support/rejection.js';
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { messageOf, publicReasonOf } from '../../../server/adapters/boundary.js';
import { createRpcClient, RpcError, RpcTransportError } from '../../../server/adapters/bitcoin/rpc.js';
import { createJsonRpcCaller } from '../../../server/adapters/json-rpc.js';
import { createZanoRpcClient, parseZanoBody, ZanoRpcError, ZanoRpcTransportError } from '../../../server/adapters/zano/rpc.js';

const PASSWORD = 's3cret';
const MB = 1024 * 1024;

/** What the server was asked. */
interface Asked {
  method: string | undefined;
  path: string | undefined;
  authorization: string | undefined;
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** Sends `text` as the whole answer (Node declares its Content-Length). */
const reply =
  (text: string, status = 200, type = 'application/json'): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': type });
    res.end(text);
  };

/** Sends `text` in chunks of 64 KB, without a Content-Length. */
const replyChunked =
  (text: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    for (let i = 0; i < text.length; i += 64 * 1024) res.write(text.slice(i, i + 64 * 1024));
    res.end();
  };

/** A Bitcoin Core answer of `result`, padded with JSON whitespace to at least `bytes`. */
const padded = (result: unknown, bytes: number) => `{"result":${JSON.stringify(result)},${' '.repeat(bytes)}"error":null,"id":1}`;

describe('JSON-RPC over HTTP (adapters/json-rpc.ts, bitcoin/rpc.ts, zano/rpc.ts)', () => {
  let server: Server;
  let port: number;
  let closedPort: number;
  let handle: Handler;
  let asked: Asked[];

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        asked.push({ method: req.method, path: req.url, authorization: req.headers.authorization, body });
        handle(req, res, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    // A port nothing listens on: one that was just freed.
    const spare = createServer();
    await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
    closedPort = (spare.address() as AddressInfo).port;
    await new Promise<void>((resolve) => spare.close(() => resolve()));
  });

  beforeEach(() => {
    asked = [];
    handle = reply('{"result":null,"error":null,"id":1}');
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const walletUrl = () => `http://user:${PASSWORD}@127.0.0.1:${port}/wallet/w`;
  const bitcoin = (timeoutMs = 5000) => createRpcClient({ url: walletUrl(), timeoutMs });

  /** The transport error `promise` rejects with, whose every message is free of the credentials. */
  async function transportError(promise: Promise<unknown>): Promise<RpcTransportError> {
    const err = await rejection(promise);
    expect(err).to.be.instanceOf(RpcTransportError);
    for (const text of [(err as Error).message, messageOf(err), String((err as Error).stack)]) {
      expect(text).not.to.contain(PASSWORD);
      expect(text).not.to.contain('user:');
    }
    return err as RpcTransportError;
  }

  describe('the Bitcoin client (createRpcClient)', () => {
    it('posts a JSON-RPC 1.0 request to the path without credentials, with them as Basic authorization', async () => {
      handle = reply('{"result":{"chain":"regtest","blocks":101},"error":null,"id":1}');
      const client = bitcoin();
      expect(await client.call('getblockchaininfo', [])).to.deep.equal({ chain: 'regtest', blocks: 101 });
      expect(asked).to.have.length(1);
      expect(asked[0].method).to.equal('POST');
      expect(asked[0].path).to.equal('/wallet/w');
      expect(asked[0].authorization).to.equal(`Basic ${Buffer.from(`user:${PASSWORD}`).toString('base64')}`);
      expect(JSON.parse(asked[0].body)).to.deep.equal({ jsonrpc: '1.0', id: 1, method: 'getblockchaininfo', params: [] });
    });

    it('reads amounts losslessly: a fraction or an exponent as its text, an integer as a number', async () => {
      handle = reply('{"result":{"amount":0.10000000,"fee":1e-8,"confirmations":6,"big":12345678901234567890},"error":null,"id":1}');
      expect(await bitcoin().call('gettransaction', ['tx'])).to.deep.equal({
        amount: '0.10000000',
        fee: '1e-8',
        confirmations: 6,
        big: '12345678901234567890',
      });
    });

    it('names its endpoint without the credentials, and keeps the wallet name', () => {
      const client = bitcoin();
      expect(client.endpoint).to.equal(`http://127.0.0.1:${port}/wallet/w`);
      expect(client.endpoint).not.to.contain(PASSWORD);
      expect(client.endpoint).not.to.contain('user');
    });

    it('refuses an answer over 4 MB to getblockchaininfo (answer too large), declared by Content-Length', async () => {
      handle = reply(padded({ chain: 'main' }, 4 * MB + 1));
      const err = await transportError(bitcoin().call('getblockchaininfo'));
      expect(err.publicReason).to.equal('answer too large');
      expect(publicReasonOf(err)).to.equal('answer too large');
      expect(err.details).to.deep.include({ timedOut: false, refused: false });
      expect(err.message).to.contain(`127.0.0.1:${port}/wallet/w`);
    });

    it('refuses an answer over 4 MB sent in chunks without a Content-Length', async () => {
      handle = replyChunked(padded({ chain: 'main' }, 5 * MB));
      const err = await transportError(bitcoin().call('getblockchaininfo'));
      expect(err.publicReason).to.equal('answer too large');
    });

    it('accepts a 5 MB listsinceblock answer (the bulk limit, 32 MB)', async () => {
      const tx = { address: 'bcrt1qexample', category: 'receive', amount: 0.1, confirmations: 1, txid: 'ab'.repeat(32), vout: 0 };
      const transactions = Array.from({ length: Math.ceil((5 * MB) / JSON.stringify(tx).length) }, () => tx);
      const text = JSON.stringify({ result: { transactions, lastblock: 'cd'.repeat(32) }, error: null, id: 1 });
      expect(text.length).to.be.above(5 * MB);
      handle = reply(text);
      const result = await bitcoin().call<{ transactions: unknown[]; lastblock: string }>('listsinceblock', []);
      expect(result.transactions).to.have.length(transactions.length);
      expect(result.transactions[0]).to.deep.include({ amount: '0.1', vout: 0 });
    });

    it('refuses a listsinceblock answer over 32 MB', async () => {
      handle = reply(padded({ transactions: [] }, 33 * MB));
      const err = await transportError(bitcoin().call('listsinceblock'));
      expect(err.publicReason).to.equal('answer too large');
    });

    it('calls an HTTP 200 answer that is not JSON a malformed answer', async () => {
      handle = reply('this is not json', 200, 'text/plain');
      const err = await transportError(bitcoin().call('getblockchaininfo'));
      expect(err.publicReason).to.equal('malformed answer');
      expect(err.details).to.deep.include({ timedOut: false, refused: false });
    });

    it('calls an HTTP 200 JSON answer without a result a malformed answer', async () => {
      handle = reply('{"id":1}');
      expect((await transportError(bitcoin().call('getblockchaininfo'))).publicReason).to.equal('malformed answer');
      handle = reply('[{"result":1,"error":null,"id":1}]');
      expect((await transportError(bitcoin().call('getblockchaininfo'))).publicReason).to.equal('malformed answer');
    });

    it('calls an HTTP 502 with an HTML page node unreachable', async () => {
      handle = reply('<html><body>502 Bad Gateway</body></html>', 502, 'text/html');
      const err = await transportError(bitcoin().call('getblockchaininfo'));
      expect(err.publicReason).to.equal('node unreachable');
      expect(err.message).to.contain('HTTP 502');
    });

    it('calls an HTTP 401 node unreachable, with a hint about the RPC user and password', async () => {
      handle = reply('', 401, 'text/plain');
      const err = await transportError(bitcoin().call('getblockchaininfo'));
      expect(err.publicReason).to.equal('node unreachable');
      expect(err.message).to.contain('wrong RPC user or password');
    });

    it('calls a refused connection node unreachable, and says it was refused', async () => {
      const client = createRpcClient({ url: `http://user:${PASSWORD}@127.0.0.1:${closedPort}/wallet/w`, timeoutMs: 5000 });
      const err = await transportError(client.call('getblockchaininfo'));
      expect(err.publicReason).to.equal('node unreachable');
      expect(err.details).to.deep.include({ refused: true, timedOut: false });
      expect(err.message).to.contain('ECONNREFUSED');
    });

    it('throws RpcError (node error) for a JSON-RPC error, whatever the HTTP status', async () => {
      for (const status of [200, 404, 500]) {
        handle = reply('{"result":null,"error":{"code":-5,"message":"Invalid or non-wallet transaction id"},"id":1}', status);
        const err = await rejection(bitcoin().call('gettransaction', ['00']));
        expect(err).to.be.instanceOf(RpcError);
        expect(err).to.deep.include({ code: -5, rpcMessage: 'Invalid or non-wallet transaction id', publicReason: 'node error' });
      }
    });

    it('calls a malformed error member ({"error":"boom"}) no usable answer, not an answered error', async () => {
      handle = reply('{"error":"boom"}');
      const err = await transportError(bitcoin().call('getblockchaininfo'));
      expect(err).not.to.be.instanceOf(RpcError);
      expect(err.publicReason).to.equal('malformed answer');
      handle = reply('{"result":1,"error":{"code":"x","message":"y"},"id":1}');
      expect(await transportError(bitcoin().call('getblockchaininfo'))).not.to.be.instanceOf(RpcError);
    });

    it('gives up on a node that never answers after timeoutMs (node unreachable, timed out)', async () => {
      handle = () => undefined; // never answers
      const err = await transportError(bitcoin(200).call('getblockchaininfo'));
      expect(err.publicReason).to.equal('node unreachable');
      expect(err.details).to.deep.include({ timedOut: true, refused: false });
      expect(err.message).to.contain('no answer within 200 ms');
    });

    it('gives up on a body that stops coming after timeoutMs (the limit covers the body)', async () => {
      handle = (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
        res.write('{"result":'); // and nothing more
      };
      const err = await transportError(bitcoin(200).call('getblockchaininfo'));
      expect(err.publicReason).to.equal('node unreachable');
      expect(err.details.timedOut).to.equal(true);
    });

    it('numbers its requests', async () => {
      handle = reply('{"result":1,"error":null,"id":1}');
      const client = bitcoin();
      await client.call('getblockcount');
      await client.call('getblockcount');
      expect(asked.map((a) => (JSON.parse(a.body) as { id: number }).id)).to.deep.equal([1, 2]);
    });
  });

  describe('createJsonRpcCaller(options)', () => {
    it('sends no authorization header for a URL without credentials, and uses the given limit per method', async () => {
      handle = reply(padded('ok', 2000));
      const caller = createJsonRpcCaller<unknown[]>({
        url: `http://127.0.0.1:${port}/`,
        timeoutMs: 5000,
        fetch: globalThis.fetch,
        version: '2.0',
        stringify: (request) => JSON.stringify(request),
        parse: (text) => JSON.parse(text),
        answered: (method, code, message) => new Error(`answered ${method} ${code} ${message}`),
        unanswered: (method, message, details) => Object.assign(new Error(`${method}: ${message}`), { details }),
        maxAnswerBytes: (method) => (method === 'small' ? 1000 : 10_000),
      });
      expect(await caller.call('large', [])).to.equal('ok');
      expect(asked[0].authorization).to.equal(undefined);
      expect(JSON.parse(asked[0].body)).to.deep.include({ jsonrpc: '2.0', method: 'large' });
      const err = await rejection(caller.call('small', []));
      expect((err as { details: unknown }).details).to.deep.equal({ timedOut: false, refused: false, publicReason: 'answer too large' });
    });
  });

  describe('the Zano client (createZanoRpcClient)', () => {
    it('posts JSON-RPC 2.0 to /json_rpc of a bare URL, writes bigint params exactly, reads integers as bigints', async () => {
      handle = reply('{"jsonrpc":"2.0","id":1,"result":{"balance":18446744073709551615,"unlocked":1.5}}');
      const client = createZanoRpcClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 5000 });
      expect(client.endpoint).to.equal(`http://127.0.0.1:${port}/json_rpc`);
      expect(await client.call('getbalance', { amount: 12345678901234567891n })).to.deep.equal({
        balance: 18446744073709551615n,
        unlocked: 1.5,
      });
      expect(asked[0].path).to.equal('/json_rpc');
      expect(asked[0].body).to.contain('"amount":12345678901234567891');
      expect(asked[0].body).to.contain('"jsonrpc":"2.0"');
    });

    it('throws ZanoRpcError (node error) for an error the wallet answered', async () => {
      handle = reply('{"jsonrpc":"2.0","id":1,"error":{"code":-7,"message":"NOT_ENOUGH_MONEY"}}');
      const err = await rejection(createZanoRpcClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 5000 }).call('transfer'));
      expect(err).to.be.instanceOf(ZanoRpcError);
      expect(err).to.deep.include({ code: -7, rpcMessage: 'NOT_ENOUGH_MONEY', publicReason: 'node error' });
    });

    it('calls an answer with an integer out of the wallet range, or 1e400, a malformed answer', async () => {
      for (const value of ['18446744073709551616', '1e400']) {
        handle = reply(`{"jsonrpc":"2.0","id":1,"result":{"balance":${value}}}`);
        const err = await rejection(createZanoRpcClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 5000 }).call('getbalance'));
        expect(err).to.be.instanceOf(ZanoRpcTransportError);
        expect(publicReasonOf(err)).to.equal('malformed answer');
      }
    });

    it('refuses an answer over 4 MB (answer too large)', async () => {
      handle = reply(padded({ balance: 1 }, 4 * MB + 1));
      const err = await rejection(createZanoRpcClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 5000 }).call('getbalance'));
      expect(err).to.be.instanceOf(ZanoRpcTransportError);
      expect(publicReasonOf(err)).to.equal('answer too large');
    });
  });

  describe('parseZanoBody(text)', () => {
    it('reads the uint64 maximum as an exact bigint, and the int64 minimum', () => {
      expect(parseZanoBody('{"a":18446744073709551615,"b":-9223372036854775808,"c":0.5}')).to.deep.equal({
        a: 18446744073709551615n,
        b: -9223372036854775808n,
        c: 0.5,
      });
    });

    for (const value of ['18446744073709551616', '-9223372036854775809', '1e400', '-1e400', '1' + '0'.repeat(30)]) {
      it(`refuses ${value}`, () => {
        expect(() => parseZanoBody(`{"a":${value}}`)).to.throw();
      });
    }

    it('refuses text that is not JSON', () => {
      expect(() => parseZanoBody('<html>')).to.throw();
    });
  });
});
