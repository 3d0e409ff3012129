/**
 * `make bench`, swaps part: the real server runs in a child process (embedded PGlite, or BENCH_DATABASE_URL;
 * response validation off as in production) and is loaded from this process with autocannon, beside the
 * Prism mock of the same operation measured in the same run. Prints figures and server ÷ mock ratios, because
 * the machine is shared and absolute numbers move from run to run; asserts nothing about speed.
 *
 * 1. signed POST /quotes (a fresh nonce and timestamp for every request);
 * 2. GET /swaps/{id} read with the swap's access token;
 * 3. 200 concurrent identical POST /swaps (one Idempotency-Key): swaps made (must be 1), statuses, p99.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import autocannon from 'autocannon';
import { startPrismMock } from '../support/process.js';
import { signHeaders, type SignerOptions } from '../support/signer.js';
import { expectOk, figuresOf, percentile, printComparison, startServerProcess, type Figures } from './server-process.js';

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;
const CONCURRENT_CREATES = 200;
const root = path.resolve(import.meta.dirname, '../..');

const QUOTE_BODY = JSON.stringify({
  sourceAsset: 'BTC',
  sourceNetwork: 'BTC',
  destinationAsset: 'USDT',
  destinationNetwork: 'ETH',
  sourceAmount: '0.015',
  refundMode: 'sender',
});
const DESTINATION_ADDRESS = '0x71C7656EC7ab88b098defB751B7401B5f6d8976F';
/** The spec's example swap id and a token of the right shape: what the mock accepts for GET /swaps/{id}. */
const MOCK_SWAP_ID = '3f2b8a1e-6c4d-4e7a-9b1f-2d5c8e0a4b71';
const MOCK_TOKEN = 'sat_4fJq9XkVb2Lw7ZpRt1Ns8Hc3Ym6Ue0Da5Gi2Ko9QxWe';
/** Well-formed signed headers for the mock, which checks their presence and shape, not their values. */
const MOCK_SIGNED_HEADERS = signHeaders(
  { keyId: 'demo', secret: 'mock', audience: 'http://mock', user: 'bench-user' },
  'POST',
  '/quotes',
  QUOTE_BODY,
);

interface Target {
  name: string;
  url: string;
  requests: autocannon.Request[];
}

async function measure(target: Target): Promise<Figures> {
  const options = { url: target.url, connections: CONNECTIONS, requests: target.requests };
  await autocannon({ ...options, duration: 1 }); // warm-up
  return figuresOf(target.name, await autocannon({ ...options, duration: DURATION_SECONDS }));
}

/** A request autocannon re-signs before every send (fresh timestamp and nonce). */
function signedRequest(signer: SignerOptions, method: 'GET' | 'POST', pathAndQuery: string, body = ''): autocannon.Request {
  return {
    method,
    path: pathAndQuery,
    setupRequest(req) {
      const headers: Record<string, string> = { ...signHeaders(signer, method, pathAndQuery, body) };
      if (body) headers['content-type'] = 'application/json';
      return { ...req, method, path: pathAndQuery, body: body || undefined, headers: { ...req.headers, ...headers } };
    },
  };
}

async function signedJson<T>(origin: string, signer: SignerOptions, method: string, pathAndQuery: string, body = '', extra = {}) {
  const headers: Record<string, string> = { ...signHeaders(signer, method, pathAndQuery, body), ...extra };
  if (body) headers['content-type'] = 'application/json';
  const res = await fetch(`${origin}${pathAndQuery}`, { method, headers, body: body || undefined });
  const text = await res.text();
  return { status: res.status, text, body: (text ? JSON.parse(text) : undefined) as T };
}

interface Quote {
  id: string;
  rateType: string;
}

async function quote(origin: string, signer: SignerOptions): Promise<Quote> {
  const res = await signedJson<{ quote: Quote }>(origin, signer, 'POST', '/api/v1/quotes', QUOTE_BODY);
  if (res.status !== 200) throw new Error(`POST /quotes answered ${res.status}: ${res.text}`);
  return res.body.quote;
}

function swapBodyFor(q: Quote): string {
  return JSON.stringify({ ...JSON.parse(QUOTE_BODY), quoteId: q.id, rateType: q.rateType, destinationAddress: DESTINATION_ADDRESS });
}

async function listSwapIds(origin: string, signer: SignerOptions): Promise<string[]> {
  const res = await signedJson<{ orders: { id: string }[] }>(origin, signer, 'GET', '/api/v1/swaps?limit=100');
  if (res.status !== 200) throw new Error(`GET /swaps answered ${res.status}: ${res.text}`);
  return res.body.orders.map((o) => o.id);
}

/** Row 3: CONCURRENT_CREATES identical creates at once, each signed on its own, one Idempotency-Key. */
async function concurrentCreates(origin: string, signer: SignerOptions): Promise<string> {
  const before = new Set(await listSwapIds(origin, signer));
  const body = swapBodyFor(await quote(origin, signer));
  const key = randomUUID();
  const requests = Array.from({ length: CONCURRENT_CREATES }, () => ({
    ...signHeaders(signer, 'POST', '/api/v1/swaps', body),
    'content-type': 'application/json',
    'idempotency-key': key,
  }));
  const results = await Promise.all(
    requests.map(async (headers) => {
      const started = performance.now();
      try {
        const res = await fetch(`${origin}/api/v1/swaps`, { method: 'POST', headers, body });
        const text = await res.text();
        const ms = performance.now() - started;
        let orderId: string | undefined;
        try {
          orderId = (JSON.parse(text) as { order?: { id?: string } }).order?.id;
        } catch {
          // not JSON: counted by its status alone
        }
        return { status: String(res.status), ms, orderId };
      } catch (err) {
        return { status: `error (${(err as Error).message})`, ms: performance.now() - started, orderId: undefined };
      }
    }),
  );
  const after = await listSwapIds(origin, signer);
  const made = after.filter((id) => !before.has(id)).length;
  const statuses = new Map<string, number>();
  for (const r of results) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  const orderIds = new Set(results.map((r) => r.orderId).filter((id) => id !== undefined));
  const latencies = results.map((r) => r.ms);
  const statusText = [...statuses.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
  const verdict = made === 1 ? 'ok' : `UNEXPECTED, should be 1`;
  return (
    `${CONCURRENT_CREATES} concurrent identical POST /swaps (one Idempotency-Key)\n` +
    `  swaps made: ${made} (${verdict}; distinct order ids in responses: ${orderIds.size})\n` +
    `  statuses: ${statusText}\n` +
    `  latency p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms`
  );
}

async function main(): Promise<void> {
  const server = await startServerProcess(root);
  const { origin, signer } = server;
  let mock: Awaited<ReturnType<typeof startPrismMock>> | undefined;
  try {
    mock = await startPrismMock(root);

    // One swap to read with its token.
    const created = await signedJson<{ order: { id: string }; accessToken: string }>(
      origin,
      signer,
      'POST',
      '/api/v1/swaps',
      swapBodyFor(await quote(origin, signer)),
      { 'idempotency-key': randomUUID() },
    );
    if (created.status !== 202) throw new Error(`POST /swaps answered ${created.status}: ${created.text}`);
    const { order, accessToken } = created.body;

    const quoteTargets: [Target, Target] = [
      { name: 'partner-swap server', url: origin, requests: [signedRequest(signer, 'POST', '/api/v1/quotes', QUOTE_BODY)] },
      {
        name: 'prism mock',
        url: mock.url,
        requests: [
          {
            method: 'POST',
            path: '/quotes',
            body: QUOTE_BODY,
            headers: { ...MOCK_SIGNED_HEADERS, 'content-type': 'application/json' },
          },
        ],
      },
    ];
    const readTargets: [Target, Target] = [
      {
        name: 'partner-swap server',
        url: origin,
        requests: [{ method: 'GET', path: `/api/v1/swaps/${order.id}`, headers: { authorization: `Bearer ${accessToken}` } }],
      },
      {
        name: 'prism mock',
        url: mock.url,
        requests: [{ method: 'GET', path: `/swaps/${MOCK_SWAP_ID}`, headers: { authorization: `Bearer ${MOCK_TOKEN}` } }],
      },
    ];

    // Every target must answer 200 before it is measured.
    await quote(origin, signer);
    await expectOk('mock POST /quotes', `${mock.url}/quotes`, {
      method: 'POST',
      headers: { ...MOCK_SIGNED_HEADERS, 'content-type': 'application/json' },
      body: QUOTE_BODY,
    });
    await expectOk('server GET /swaps/{id}', `${origin}/api/v1/swaps/${order.id}`, { headers: { authorization: `Bearer ${accessToken}` } });
    await expectOk('mock GET /swaps/{id}', `${mock.url}/swaps/${MOCK_SWAP_ID}`, { headers: { authorization: `Bearer ${MOCK_TOKEN}` } });

    const quoteFigures = [await measure(quoteTargets[0]), await measure(quoteTargets[1])];
    const readFigures = [await measure(readTargets[0]), await measure(readTargets[1])];
    const createSummary = await concurrentCreates(origin, signer);

    process.stdout.write(
      `Swaps bench: server in its own process (${server.database}), ${CONNECTIONS} connections, ${DURATION_SECONDS}s each after a 1s warm-up\n`,
    );
    printComparison('signed POST /quotes', quoteFigures[0], quoteFigures[1]);
    printComparison('token-read GET /swaps/{id}', readFigures[0], readFigures[1]);
    process.stdout.write(`${createSummary}\n`);
    const logLines = server.child
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    process.stdout.write(`server log lines at warn or above during the run: ${logLines.length}\n`);
    for (const line of logLines.slice(0, 5)) process.stdout.write(`  ${line.slice(0, 300)}\n`);
  } catch (err) {
    process.stderr.write(`server output:\n${server.child.output().slice(-5000)}\n`);
    throw err;
  } finally {
    await mock?.stop();
    await server.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
