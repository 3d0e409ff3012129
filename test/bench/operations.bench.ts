/**
 * `make bench`, the main table: one row per operation of the spec (walked from generated/openapi.json, so a
 * new operation shows up as a row; ROWS is keyed by operationId, so it is also a compile error until it is
 * given a row). Each row gives the server's req/s, p50 and p99, the same for the Prism mock of that
 * operation, the ratio server ÷ Prism and, for GET /assets and signed POST /quotes, server ÷ a bare express
 * handler answering the same body (in a process of its own too).
 *
 * - The server runs in its own process (startServerProcess: NODE_ENV=production, response validation off,
 *   rate limits raised), on embedded PGlite, or on a fresh database of the PostgreSQL at DATABASE_URL.
 *   The load runs here (load.ts: node:http, BENCH_CONNECTIONS keep-alive connections, default 50).
 * - A row warms each target up (BENCH_WARMUP_SECONDS, default 1), then measures them in BENCH_ROUNDS (default
 *   5) rounds of BENCH_SECONDS (default 1) each, alternating the order (server, Prism, bare; then bare,
 *   Prism, server; ...), and shows each target's median round. On a shared machine the speed comes and goes
 *   for seconds at a time (a stall of the machine, a pause of the mock or the server): alternating short runs
 *   lets a slow stretch hit both targets alike, and the median leaves out a round that one stall spoiled,
 *   where a mean of two long runs carried it into the ratio.
 * - Signed requests are signed afresh for every request (new timestamp and nonce), for the mock too.
 * - Single-use inputs come from pools made before the run (a quote per POST /swaps, a challenge and wallet
 *   signature per POST /permanent-routes); the server's warm-up and rounds of those rows run for a number of
 *   requests sized from a short first run's rate to last about BENCH_WARMUP_SECONDS, then from the warm-up's
 *   rate to last about BENCH_SECONDS, each from a pool filled before it.
 * - Every answer must have the row's expected status; any other answer, connection error or timeout makes
 *   the bench exit non-zero once the table is printed. A ratio never does.
 * - Under the table: the server's RSS idle (after start and set-up) and the most seen under the load (G5).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { loadApiDocument } from '../../server/spec.js';
import type { OperationId } from '../../server/http/handler-types.js';
import { startPrismMock } from '../support/process.js';
import { createBenchWorld, makeRouteBodies, makeSwapBodies, type BenchWorld } from './fixtures.js';
import { runLoad, statusText, type LoadFigures, type RunLength } from './load.js';
import { nextOf, send, signedCall, type Call, type Target } from './requests.js';
import {
  percentile,
  rssMb,
  startBareExpress,
  startServerProcess,
  startWebhookReceiver,
  type BareRoute,
  type ServerProcess,
} from './server-process.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** Only rows whose label matches this regular expression (case-insensitive) are measured: for profiling one row. */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : undefined;
/** Identical POST /swaps sent at once with one Idempotency-Key (the row kept from swaps.bench.ts). */
const BURST_REQUESTS = 200;
/** Most single-use inputs made for one pool row. */
const POOL_MAX = Number(process.env.BENCH_POOL_MAX ?? 20_000);
const API_PREFIX = '/api/v1';
const RSS_SAMPLE_MS = 100;
/** The floor (issue 34): every row at or above this ratio to Prism... */
const FLOOR_VS_PRISM = 1.0;
/** ...and GET /assets at or above this ratio to bare express. */
const FLOOR_ASSETS_VS_BARE = 0.6;
/** Answers of the server and Prism whose sizes differ by more than this get a note. */
const UNLIKE_BODY_FACTOR = 4;
const root = path.resolve(import.meta.dirname, '../..');
const out = (line = '') => process.stdout.write(`${line}\n`);

/** A row of the table; an operation has one or more. */
interface Row {
  /** Told apart from the operation's other rows, e.g. "token". */
  variant?: string;
  /** Shown under the table. */
  note?: string;
  /** Why this row is not measured here. */
  skip?: string;
  call?: Call;
  /** What the mock gets when it is not `call` (single-use bodies are the server's alone). */
  mockCall?: Call;
  /** The server's expected status when it is not the spec's first 2xx (Prism always answers that one). */
  expect?: number;
  /** Makes `count` more single-use inputs for `call.body`; the row then runs for a number of requests. */
  fill?: (count: number) => Promise<void>;
  /** Also measure a bare express handler answering the server's body. */
  bare?: boolean;
  /**
   * Instead of timed runs: bursts of BURST_REQUESTS identical requests at once, BENCH_ROUNDS per target (call.body
   * and headers are fixed within a burst; `fill` readies the next burst's).
   */
  burst?: boolean;
}

/** What a row is given to build its requests from. */
interface RowContext {
  world: BenchWorld;
  server: ServerProcess;
}

/**
 * A pool of single-use bodies: `take` hands each out once; `fill` makes more. The first one made is kept
 * as `sample`, the body the mock gets (it checks the shape only).
 */
function bodyPool(make: (count: number) => Promise<string[]>) {
  const items: string[] = [];
  let sample = '';
  return {
    // An exhausted pool hands out the sample again and again; the server's refusals then count as failures.
    take: () => items.pop() ?? sample,
    sample: () => sample,
    fill: async (count: number) => {
      const made = await make(sample ? count : count + 1);
      sample ||= made.pop()!;
      items.push(...made);
    },
  };
}

/** The rows of every operation the server serves. */
const ROWS: Record<OperationId, (c: RowContext) => Row[]> = {
  getHealth: () => [{ call: { method: 'GET', path: '/health', auth: 'public' } }],
  getOpenApiDocument: () => [
    {
      note: 'sent with Accept-Encoding: gzip, deflate, br, as fetch and browsers send it (both targets)',
      call: { method: 'GET', path: '/openapi.json', auth: 'public', headers: () => ({ 'accept-encoding': 'gzip, deflate, br' }) },
    },
  ],
  getSigningKeys: () => [{ call: { method: 'GET', path: '/signing-keys', auth: 'public' } }],
  listAssets: () => [{ call: { method: 'GET', path: '/assets', auth: 'public' }, bare: true }],
  getPairs: () => [{ call: { method: 'GET', path: '/pairs', auth: 'public' } }],
  createQuote: ({ world }) => [{ call: signedCall('POST', '/quotes', world.quoteRequest), bare: true }],
  listSwaps: () => [{ call: signedCall('GET', '/swaps') }],
  createSwap: ({ server }) => {
    const pool = bodyPool((n) => makeSwapBodies(server.origin, server.signer, n));
    const fresh = () => ({ 'idempotency-key': randomUUID() });
    // Each burst (BENCH_ROUNDS per target) has a body and Idempotency-Key of its own: `fill` readies the next one.
    let burstBody = '';
    let burstKey = '';
    return [
      {
        variant: 'steady state',
        note: 'a quote of its own per request (a pool made before the run) and a new Idempotency-Key',
        call: { method: 'POST', path: '/swaps', auth: 'signed', body: pool.take, headers: fresh },
        mockCall: { method: 'POST', path: '/swaps', auth: 'signed', body: pool.sample, headers: fresh },
        fill: pool.fill,
      },
      {
        variant: `${BURST_REQUESTS} identical at once`,
        note:
          `${BURST_REQUESTS} concurrent requests, one body and Idempotency-Key, each signed on its own: exactly one swap must be made ` +
          `(req/s = ${BURST_REQUESTS} ÷ the time until the last answer; ${ROUNDS} bursts per target, alternating, each with a new body and key, the median shown)`,
        call: { method: 'POST', path: '/swaps', auth: 'signed', body: () => burstBody, headers: () => ({ 'idempotency-key': burstKey }) },
        fill: async () => {
          burstBody = (await makeSwapBodies(server.origin, server.signer, 1))[0];
          burstKey = randomUUID();
        },
        burst: true,
      },
    ];
  },
  getSwap: ({ world }) => [
    { variant: 'token', call: { method: 'GET', path: `/swaps/${world.readSwap.id}`, auth: { bearer: world.readSwap.token } } },
    { variant: 'signed', call: signedCall('GET', `/swaps/${world.readSwap.id}`) },
  ],
  streamSwap: () => [
    {
      skip: 'an event stream stays open, so it has no req/s: streams.bench.ts measures streams held, their memory and change-to-stream latency',
    },
  ],
  getPartnerWebhook: () => [{ call: signedCall('GET', '/partner/webhook') }],
  putPartnerWebhook: ({ world }) => [{ call: signedCall('PUT', '/partner/webhook', { url: world.receiverUrl }) }],
  listWebhookDeliveries: () => [{ call: signedCall('GET', '/partner/webhook/deliveries') }],
  sendTestWebhook: () => [
    {
      call: signedCall('POST', '/partner/webhook/test'),
      note: "each request is a real delivery to a local receiver (plain node:http in a process of its own: a partner's receiver runs on its own machines, so this one takes as little of this machine as it can) that answers 200 at once; the per-partner sending limit (WEBHOOK_MAX_CONCURRENT_PER_PARTNER, 4 by default) is raised to 64 like the rate limits, so the row measures the work of a test send and not the throttle",
    },
  ],
  getPartnerMarkup: () => [{ call: signedCall('GET', '/partner/markup') }],
  putPartnerMarkup: () => [{ call: signedCall('PUT', '/partner/markup', { percent: 0.5 }) }],
  listPartnerEarnings: () => [{ call: signedCall('GET', '/partner/earnings') }],
  createRouteChallenge: ({ world }) => [
    {
      call: signedCall('POST', '/permanent-routes/challenges', {
        destinationAsset: 'ZANO',
        destinationNetwork: 'ZANO',
        destinationAddress: world.readRoute.destination_address,
      }),
    },
  ],
  createPermanentRoute: ({ server }) => {
    const pool = bodyPool((n) => makeRouteBodies(server.origin, server.signer, n));
    return [
      {
        note: 'a challenge and wallet signature of its own per request (a pool made before the run): each request creates a route',
        call: { method: 'POST', path: '/permanent-routes', auth: 'signed', body: pool.take },
        mockCall: { method: 'POST', path: '/permanent-routes', auth: 'signed', body: pool.sample },
        fill: pool.fill,
      },
    ];
  },
  listPermanentRoutes: () => [{ call: signedCall('GET', '/permanent-routes') }],
  getPermanentRoute: ({ world }) => [{ call: signedCall('GET', `/permanent-routes/${world.readRoute.route_id}`) }],
  listRouteDeposits: ({ world }) => [{ call: signedCall('GET', `/permanent-routes/${world.readRoute.route_id}/deposits`) }],
  expectRouteDeposit: ({ world }) => [{ call: signedCall('POST', `/permanent-routes/${world.readRoute.route_id}/expect-deposit`) }],
  createSandboxDeposit: ({ world }) => [
    {
      note: "each request pays a route's BTC address; the route is not polled during the run (ROUTE_POLL_SECONDS=3600), so nothing converts",
      call: signedCall('POST', '/sandbox/deposits', {
        address: world.payRoute.addresses['BTC/BTC'],
        asset: 'BTC',
        network: 'BTC',
        amount: '0.01',
      }),
    },
  ],
  decideSandboxReview: ({ world }) => [
    {
      expect: 409,
      note: 'the swap is overdue, not in review: 409 invalid_state on every request (a review decision can be made once per swap)',
      call: signedCall('POST', `/sandbox/swaps/${world.overdueSwap.id}/review-decision`, { decision: 'approve' }),
    },
  ],
  injectSandboxFailure: ({ world }) => [
    {
      note: 'arms the same failure on one waiting swap again and again',
      call: signedCall('POST', `/sandbox/swaps/${world.armedSwap.id}/failures`, { stage: 'exchange' }),
    },
  ],
  advanceSandboxSwapClock: ({ world }) => [
    {
      expect: 409,
      note: 'the swap is already overdue: 409 invalid_state on every request (the deposit deadline passes once per swap)',
      call: signedCall('POST', `/sandbox/swaps/${world.overdueSwap.id}/clock`, { deadline: 'deposit' }),
    },
  ],
  reorganizeSandboxChain: () => [
    {
      skip: 'each request would remove blocks under the swaps the other rows use; a test control, not a path partners load',
    },
  ],
};

/** A spec operation as the document lists it. */
interface SpecOperation {
  operationId: OperationId;
  method: string;
  path: string;
  /** The first 2xx status the spec documents: what Prism answers, and what the server must answer. */
  success: number;
}

function specOperations(): SpecOperation[] {
  const operations: SpecOperation[] = [];
  const { document } = loadApiDocument();
  for (const [p, item] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
    for (const [method, op] of Object.entries(item)) {
      const operation = op as { operationId?: string; responses?: Record<string, unknown> };
      if (!operation.operationId || !operation.responses) continue;
      const success = Object.keys(operation.responses)
        .map(Number)
        .filter((s) => s >= 200 && s < 300)
        .sort((a, b) => a - b)[0];
      operations.push({ operationId: operation.operationId as OperationId, method: method.toUpperCase(), path: p, success });
    }
  }
  return operations;
}

/** A measured (or skipped, or failed) row. */
interface Result {
  label: string;
  expect: number;
  /** Prism's expected status: the spec's first 2xx. */
  mockExpect: number;
  note?: string;
  skip?: string;
  server?: Figures;
  mock?: Figures;
  bare?: Figures;
  /** Why the row failed, beyond the counted answers. */
  problems: string[];
}

/** LoadFigures, or the figures of a burst, and the size of the first answer's body. */
type Figures = Pick<LoadFigures, 'requestsPerSecond' | 'p50Ms' | 'p99Ms' | 'statuses' | 'failures' | 'firstUnexpected'> & {
  bodyBytes?: number;
};

/** One target of a row, ready to be warmed up and measured in rounds. */
interface Runner {
  /** The size of the first answer's body. */
  bodyBytes: number;
  /** The warm-up: its runs count in the row's statuses and failures, not in its figures. */
  warm(): Promise<LoadFigures[]>;
  round(): Promise<LoadFigures>;
}

/**
 * Readies one target for one row: a first request that must answer `expect` (else the figures of that
 * failure, and the target is not loaded). With `fill`, the warm-up and the rounds are sized in requests: a
 * first run of CONNECTIONS * 4 requests sizes the warm-up, the warm-up's rate sizes the rounds, and each is
 * filled before it runs.
 */
async function runnerFor(target: Target, call: Call, expect: number, fill?: (count: number) => Promise<void>): Promise<Runner | Figures> {
  const next = nextOf(call, target);
  await fill?.(1);
  const first = await send(target, next());
  if (first.status !== expect) {
    return {
      requestsPerSecond: 0,
      p50Ms: 0,
      p99Ms: 0,
      statuses: { [first.status]: 1 },
      failures: 1,
      firstUnexpected: `${first.status} ${first.text.slice(0, 300)}`,
    };
  }
  const run = async (length: RunLength) => runLoad({ origin: target.origin, connections: CONNECTIONS, length, expect, next });
  const bodyBytes = Buffer.byteLength(first.text);
  if (!fill) return { bodyBytes, warm: async () => [await run({ seconds: WARMUP_SECONDS })], round: () => run({ seconds: SECONDS }) };
  let count = CONNECTIONS * 4;
  const sized = async () => {
    await fill(count);
    return run({ amount: count });
  };
  const lasting = (seconds: number, rate: LoadFigures) =>
    Math.min(POOL_MAX, Math.max(CONNECTIONS, Math.ceil(rate.requestsPerSecond * seconds)));
  return {
    bodyBytes,
    // As long as a timed target's: a short run gives the rate, then a run of about WARMUP_SECONDS at that rate.
    warm: async () => {
      const probe = await sized();
      count = lasting(WARMUP_SECONDS, probe);
      const warm = await sized();
      count = lasting(SECONDS, warm);
      return [probe, warm];
    },
    round: sized,
  };
}

/**
 * A target's rounds (timed runs or bursts) as one: req/s, p50 and p99 each the median over the rounds (the
 * lower middle one for an even BENCH_ROUNDS); statuses and failures added up over the rounds and the warm-up
 * runs, if any (every request must get its expected status, so a failed round fails the bench though its
 * figures count in the median).
 */
function medianOf(rounds: Figures[], warm: Figures[] = [], bodyBytes?: number): Figures {
  const counted = [...warm, ...rounds];
  const statuses: Record<string, number> = {};
  for (const f of counted) for (const [code, n] of Object.entries(f.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  const median = (pick: (f: Figures) => number) => percentile(rounds.map(pick), 50);
  return {
    requestsPerSecond: median((f) => f.requestsPerSecond),
    p50Ms: median((f) => f.p50Ms),
    p99Ms: median((f) => f.p99Ms),
    statuses,
    failures: counted.reduce((sum, f) => sum + f.failures, 0),
    firstUnexpected: counted.find((f) => f.firstUnexpected)?.firstUnexpected,
    bodyBytes,
  };
}

/**
 * Measures a row's targets: each is readied and warmed up, then all are measured in ROUNDS rounds, the order
 * reversed every round (server, Prism, bare; bare, Prism, server; ...). A target whose first request failed
 * gets the figures of that failure and is not loaded.
 */
async function measureTargets(
  plans: Array<{ target: Target; call: Call; expect: number; fill?: (count: number) => Promise<void> }>,
): Promise<Figures[]> {
  const figures: Figures[] = [];
  const live: Array<{ index: number; runner: Runner; warm?: LoadFigures[]; rounds: LoadFigures[] }> = [];
  for (const [index, plan] of plans.entries()) {
    const runner = await runnerFor(plan.target, plan.call, plan.expect, plan.fill);
    if ('warm' in runner) live.push({ index, runner, rounds: [] });
    else figures[index] = runner;
  }
  for (const l of live) l.warm = await l.runner.warm();
  for (let round = 0; round < ROUNDS; round++) {
    for (const l of round % 2 ? [...live].reverse() : live) l.rounds.push(await l.runner.round());
  }
  for (const l of live) figures[l.index] = medianOf(l.rounds, l.warm!, l.runner.bodyBytes);
  return figures;
}

/** BURST_REQUESTS copies of one request at once; figures over the burst. */
async function burst(target: Target, call: Call, expect: number): Promise<Figures & { orderIds: Set<string> }> {
  const next = nextOf(call, target);
  const requests = Array.from({ length: BURST_REQUESTS }, () => next());
  const started = performance.now();
  const answers = await Promise.all(
    requests.map((r) => send(target, r).catch((err: Error) => ({ status: 0, text: `connection error: ${err.message}`, ms: 0 }))),
  );
  const seconds = (performance.now() - started) / 1000;
  const statuses: Record<string, number> = {};
  const orderIds = new Set<string>();
  let firstUnexpected: string | undefined;
  for (const a of answers) {
    statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    if (a.status !== expect) firstUnexpected ??= `${a.status} ${a.text.slice(0, 300)}`;
    try {
      const id = (JSON.parse(a.text) as { order?: { id?: string } }).order?.id;
      if (id) orderIds.add(id);
    } catch {
      // not JSON: its status tells
    }
  }
  const latencies = answers.map((a) => a.ms);
  return {
    requestsPerSecond: BURST_REQUESTS / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    statuses,
    failures: answers.filter((a) => a.status !== expect).length,
    firstUnexpected,
    orderIds,
  };
}

/** How many swaps the partner has (to see that a burst made exactly one). */
async function countSwaps(target: Target): Promise<number> {
  let total = 0;
  let cursor: string | null = null;
  do {
    const call = signedCall('GET', `/swaps?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    const res = await send(target, nextOf(call, target)());
    if (res.status !== 200) throw new Error(`GET /swaps answered ${res.status}: ${res.text}`);
    const page = JSON.parse(res.text) as { orders: unknown[]; nextCursor: string | null };
    total += page.orders.length;
    cursor = page.nextCursor;
  } while (cursor);
  return total;
}

/** The most RSS seen while sampling. */
function sampleRss(pid: number): { max: () => number; stop: () => void } {
  let max = rssMb(pid);
  const timer = setInterval(() => {
    try {
      max = Math.max(max, rssMb(pid));
    } catch {
      // the process is gone; the last value stands
    }
  }, RSS_SAMPLE_MS);
  return { max: () => max, stop: () => clearInterval(timer) };
}

// Reads first (they see the data the set-up made, not what the writes add), then repeatable writes, then
// the rows that create swaps and routes (their background work would otherwise run under other rows).
function runOrder(row: Row, method: string): number {
  if (row.fill) return 2;
  return method === 'GET' ? 0 : 1;
}

const fmt = (n: number | undefined, digits = 0) => (n === undefined ? '' : n.toLocaleString('en-US', { maximumFractionDigits: digits }));
const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b ? `${(a / b).toFixed(2)}x` : '');

/** Says so when the server and Prism answer bodies of very different sizes (Prism answers the spec's example). */
function unlikeBodies(r: Result): string | undefined {
  const server = r.server?.bodyBytes;
  const mock = r.mock?.bodyBytes;
  if (!server || !mock || (server / mock < UNLIKE_BODY_FACTOR && mock / server < UNLIKE_BODY_FACTOR)) return undefined;
  return `not like for like: the server's answer is ${fmt(server)} bytes (decoded), Prism's (the spec's example) ${fmt(mock)} bytes`;
}

function printTable(results: Result[], server: ServerProcess, rss: { idle: number; max: number }, minutes: number): void {
  const notes: string[] = [];
  const header = [
    'operation',
    'expects',
    'server req/s',
    'p50 ms',
    'p99 ms',
    'Prism req/s',
    'p50 ms',
    'p99 ms',
    'server ÷ Prism',
    'server ÷ bare',
    'failed',
  ];
  const lines: string[][] = [header];
  for (const r of results) {
    let label = r.label;
    const note = [r.skip ?? r.note, unlikeBodies(r)].filter(Boolean).join('; ');
    if (note) {
      notes.push(note);
      label += ` [${notes.length}]`;
    }
    if (r.skip) {
      lines.push([label, '', 'not measured here', '', '', '', '', '', '', '', '']);
      continue;
    }
    const failed = (r.server?.failures ?? 0) + (r.mock?.failures ?? 0) + (r.bare?.failures ?? 0) + r.problems.length;
    lines.push([
      label,
      String(r.expect),
      fmt(r.server?.requestsPerSecond),
      fmt(r.server?.p50Ms, 1),
      fmt(r.server?.p99Ms, 1),
      fmt(r.mock?.requestsPerSecond),
      fmt(r.mock?.p50Ms, 1),
      fmt(r.mock?.p99Ms, 1),
      ratio(r.server?.requestsPerSecond, r.mock?.requestsPerSecond),
      ratio(r.server?.requestsPerSecond, r.bare?.requestsPerSecond),
      failed ? String(failed) : '0',
    ]);
  }
  const widths = header.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  const render = (l: string[]) => `| ${l.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(' | ')} |`;
  out(
    `Operations bench (${server.database}): server in its own process (${server.code}, NODE_ENV=production, response validation off, rate limits raised); ` +
      `load from this process (node:http) on ${CONNECTIONS} connections; per row and target ${WARMUP_SECONDS} s warm-up, then ${ROUNDS} rounds of ${SECONDS} s ` +
      'in alternating order (server, Prism, bare; then bare, Prism, server; ...), the median round shown ' +
      `(the burst row: ${ROUNDS} bursts per target in alternating order, no warm-up, the median burst shown)`,
  );
  out(render(lines[0]));
  out(`|${widths.map((w, i) => (i < 2 ? ` ${'-'.repeat(w)} ` : ` ${'-'.repeat(w - 1)}: `)).join('|')}|`);
  for (const l of lines.slice(1)) out(render(l));
  out();
  notes.forEach((n, i) => out(`[${i + 1}] ${n}`));
  for (const r of results.filter((x) => x.bare)) {
    out(
      `bare express (own process) for ${r.label}: ${fmt(r.bare!.requestsPerSecond)} req/s, p50 ${r.bare!.p50Ms} ms, p99 ${r.bare!.p99Ms} ms`,
    );
  }
  out(
    `server memory (RSS, ${server.database}): ${rss.idle.toFixed(0)} MB idle after start and set-up; ${rss.max.toFixed(0)} MB the most seen under the load`,
  );
  out(floorLine(results));
  out(`whole run: ${minutes.toFixed(1)} min`);
}

/**
 * Which measured rows are under the floor: server ÷ Prism below FLOOR_VS_PRISM, GET /assets ÷ bare below
 * FLOOR_ASSETS_VS_BARE. Said, not failed on: one run's ratio moves with the machine (see the top of this file).
 */
function floorLine(results: Result[]): string {
  const under: string[] = [];
  for (const r of results) {
    const prism = r.server && r.mock?.requestsPerSecond ? r.server.requestsPerSecond / r.mock.requestsPerSecond : undefined;
    if (prism !== undefined && prism < FLOOR_VS_PRISM) under.push(`${r.label} ${prism.toFixed(2)}x Prism`);
    const bare = r.server && r.bare?.requestsPerSecond ? r.server.requestsPerSecond / r.bare.requestsPerSecond : undefined;
    if (r.label === 'GET /assets' && bare !== undefined && bare < FLOOR_ASSETS_VS_BARE) under.push(`${r.label} ${bare.toFixed(2)}x bare`);
  }
  const rule = `floor: every row >= ${FLOOR_VS_PRISM.toFixed(1)}x Prism, GET /assets >= ${FLOOR_ASSETS_VS_BARE}x bare express`;
  return under.length ? `${rule}: ${under.length} under in this run: ${under.join('; ')}` : `${rule}: held by every row in this run`;
}

/** Every row of every operation, in the spec's order; an operation without rows gets a failed row. */
function planRows(context: RowContext): { results: Result[]; planned: Array<{ row: Row; result: Result; order: number }> } {
  const results: Result[] = [];
  const planned: Array<{ row: Row; result: Result; order: number }> = [];
  for (const op of specOperations()) {
    const build = ROWS[op.operationId] as ((c: RowContext) => Row[]) | undefined;
    const label = `${op.method} ${op.path}`;
    if (!build) {
      results.push({ label, expect: op.success, mockExpect: op.success, problems: ['no row for this operation in operations.bench.ts'] });
      continue;
    }
    for (const row of build(context)) {
      const result: Result = {
        label: row.variant ? `${label} (${row.variant})` : label,
        expect: row.expect ?? op.success,
        mockExpect: op.success,
        note: row.note,
        skip: row.skip,
        problems: [],
      };
      if (ONLY && !ONLY.test(result.label)) continue;
      results.push(result);
      if (!row.skip) planned.push({ row, result, order: runOrder(row, op.method) });
    }
  }
  return { results, planned };
}

/** The bare-express baseline, answering what the server answers to the rows marked `bare`. */
async function startBaseline(rows: Row[], serverTarget: Target): Promise<{ target: Target; stop(): Promise<unknown> }> {
  const routes: BareRoute[] = [];
  for (const row of rows) {
    const call = row.call!;
    const answer = await send(serverTarget, nextOf(call, serverTarget)());
    const method = call.method === 'GET' ? 'get' : 'post';
    routes.push({ method, path: API_PREFIX + call.path, status: answer.status, body: JSON.parse(answer.text) });
  }
  const bare = await startBareExpress(root, routes);
  return { target: { ...serverTarget, name: 'bare express', origin: bare.origin }, stop: bare.stop };
}

/** Fills `result` with the row's figures on the server, Prism and (when asked) the bare baseline. */
async function measureRow(row: Row, result: Result, targets: { server: Target; mock: Target; bare: Target }): Promise<void> {
  const call = row.call!;
  if (!row.burst) {
    // A pool row's inputs are single-use: each server round gets fresh ones from the pool; the mock gets the sample.
    const plans = [
      { target: targets.server, call, expect: result.expect, fill: row.fill },
      { target: targets.mock, call: row.mockCall ?? call, expect: result.mockExpect },
      ...(row.bare ? [{ target: targets.bare, call, expect: result.expect }] : []),
    ];
    [result.server, result.mock, result.bare] = await measureTargets(plans);
    return;
  }
  // BENCH_ROUNDS bursts per target, the order alternating as in measureTargets; every server burst has a new
  // body and key, and must make exactly one swap.
  const server: Array<Figures & { orderIds: Set<string> }> = [];
  const mock: Figures[] = [];
  const made: number[] = [];
  const burstServer = async () => {
    await row.fill!(1);
    const before = await countSwaps(targets.server);
    server.push(await burst(targets.server, call, result.expect));
    made.push((await countSwaps(targets.server)) - before);
  };
  const burstMock = async () => {
    mock.push(await burst(targets.mock, row.mockCall ?? call, result.mockExpect));
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const run of round % 2 ? [burstMock, burstServer] : [burstServer, burstMock]) await run();
  }
  result.server = medianOf(server);
  result.mock = medianOf(mock);
  const statuses = statusText(result.server.statuses);
  result.note += `; here: swaps made per burst ${made.join(', ')}, distinct order ids answered per burst ${server.map((b) => b.orderIds.size).join(', ')}, statuses ${statuses}`;
  const wrong = made.filter((n) => n !== 1);
  if (wrong.length)
    result.problems.push(`${wrong.join(', ')} swaps made by ${BURST_REQUESTS} identical requests; exactly 1 expected per burst`);
}

/** Prints every failed request and problem; true when there was any. */
function reportFailures(results: Result[]): boolean {
  const failing = results.filter((r) => r.problems.length || [r.server, r.mock, r.bare].some((f) => f && f.failures > 0));
  if (failing.length === 0) return false;
  out();
  out(`FAILED: ${failing.length} row(s) had requests that did not get their expected status:`);
  for (const r of failing) {
    const targets = { server: r.server, Prism: r.mock, 'bare express': r.bare };
    for (const [name, f] of Object.entries(targets)) {
      if (!f || f.failures === 0) continue;
      const first = f.firstUnexpected ?? 'connection error or timeout';
      out(`  ${r.label}, ${name}: ${f.failures} failed (statuses ${statusText(f.statuses)}); first: ${first}`);
    }
    for (const p of r.problems) out(`  ${r.label}: ${p}`);
  }
  return true;
}

async function main(): Promise<void> {
  const started = performance.now();
  const server = await startServerProcess(root, {
    // Pools are made before their row runs; route deposits made by a row are not converted under later rows.
    // The webhook receiver (below) listens on this machine.
    env: {
      QUOTE_TTL_SECONDS: '3600',
      CHALLENGE_TTL_SECONDS: '3600',
      ROUTE_POLL_SECONDS: '3600',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_MAX_CONCURRENT_PER_PARTNER: '64',
    },
    // BENCH_CPU_PROF=dir: a CPU profile of the server, written when it stops (with BENCH_ONLY, of one row).
    nodeArgs: process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_CPU_PROF)] : [],
  });
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const mock = await startPrismMock(root);
    stops.push(mock.stop);
    // The webhook receiver is plain node:http in a process of its own (answers 200, keeps nothing): the
    // deliveries cost this process, which generates the load, nothing, and the machine as little as they can.
    const receiver = await startWebhookReceiver(root);
    stops.push(receiver.stop);
    const world = await createBenchWorld(server.origin, server.signer, receiver.url);
    const { results, planned } = planRows({ world, server });
    const serverTarget: Target = { name: 'server', origin: server.origin, prefix: API_PREFIX, signer: server.signer };
    const mockSigner = { keyId: 'demo', secret: 'mock', audience: mock.url, user: server.signer.user };
    const baseline = await startBaseline(
      planned.filter((p) => p.row.bare).map((p) => p.row),
      serverTarget,
    );
    stops.push(baseline.stop);
    const targets = {
      server: serverTarget,
      mock: { name: 'Prism', origin: mock.url, prefix: '', signer: mockSigner },
      bare: baseline.target,
    };

    const rssIdle = rssMb(server.pid);
    const rss = sampleRss(server.pid);
    stops.push(async () => rss.stop());
    for (const { row, result } of [...planned].sort((a, b) => a.order - b.order)) {
      process.stderr.write(`measuring ${result.label}\n`);
      try {
        await measureRow(row, result, targets);
      } catch (err) {
        result.problems.push((err as Error).message);
      }
    }

    printTable(results, server, { idle: rssIdle, max: rss.max() }, (performance.now() - started) / 60_000);
    const logLines = server.child
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    out(`server log lines at warn or above: ${logLines.length}${logLines.length ? `; first: ${logLines[0].slice(0, 500)}` : ''}`);
    if (reportFailures(results)) process.exitCode = 1;
  } catch (err) {
    process.stderr.write(`server output:\n${server.child.output().slice(-5000)}\n`);
    throw err;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await server.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
