/**
 * `make bench-data` (issue 11, G4): do reads stay flat as a partner's data grows? Starts the server in its own
 * process (embedded PGlite, or a fresh database on the PostgreSQL of DATABASE_URL), provisions a second partner
 * next to the demo one, makes a swap and a permanent route for each through the API, then seeds their
 * histories with SQL (`insert ... select ... from generate_series`) through a direct connection to the server's
 * database:
 *
 *   small partner: 1,000 swaps, 5 events each, 1,000 deposits on its route;
 *   large partner: BENCH_DATA_SWAPS (default 200,000) swaps, BENCH_DATA_EVENTS (default 1,000,000) events and
 *                  BENCH_DATA_DEPOSITS (default 100,000) deposits.
 *
 * Both live in one database, so both sizes are measured on the same server, minutes apart at most, and each
 * read is measured in the order small, large, large, small (half of BENCH_DATA_SECONDS, default 5, per slot):
 * the shared machine's drift moves both sizes alike instead of landing on one of them, as it did when the
 * large size was seeded and measured after the small one. After seeding, VACUUM ANALYZE (which autovacuum
 * would run on PostgreSQL anyway, so that it does not run during the measurement instead;
 * BENCH_DATA_ANALYZE=0 skips it). Each read: BENCH_DATA_CONNECTIONS (default 4) requests in flight after a
 * 1 s warm-up per size, each timed here to the microsecond. It prints p50 and p99 at both sizes, their
 * ratios, met or not met (within 1.5x; GET /assets, which reads no partner data, is measured too as a control
 * of how much the machine drifted), and the
 * EXPLAIN (ANALYZE, BUFFERS) plans, for the large partner, of the SQL the handlers run (captured from the store
 * functions themselves). Every read must answer 200; anything else makes it exit non-zero.
 *
 * The seeded swaps are terminal (finished, expired, refunded, failed) so that no worker picks them up; the
 * deposits are `ordered` (each names one of its partner's seeded swaps as its order) plus five `accumulating`.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { encodeCursor } from '../../server/handlers/cursors.js';
import { provisionPartner } from '../../server/partners.js';
import { createSecretBox } from '../../server/store/secret-box.js';
import { TERMS_VERSION } from '../../server/domain/swap-view.js';
import { createRouteDepositsReader } from '../../server/store/routes.js';
import { createSwapPageReader, createSwapViewReader } from '../../server/store/swaps.js';
import { createVerifiedRoute } from '../support/routes.js';
import { ETH_ADDRESS, swapClient } from '../support/swaps.js';
import type { SignerOptions } from '../support/signer.js';
import type { Outgoing } from './load.js';
import { nextOf, signedCall, type Call, type Target } from './requests.js';
import { percentile, startServerProcess } from './server-process.js';

const LARGE = {
  swaps: Number(process.env.BENCH_DATA_SWAPS ?? 200_000),
  events: Number(process.env.BENCH_DATA_EVENTS ?? 1_000_000),
  deposits: Number(process.env.BENCH_DATA_DEPOSITS ?? 100_000),
};
const SMALL = { swaps: 1_000, events: Math.round((1_000 * LARGE.events) / LARGE.swaps), deposits: 1_000 };
const SECONDS = Number(process.env.BENCH_DATA_SECONDS ?? 5);
const WARMUP_SECONDS = 1;
const CONNECTIONS = Number(process.env.BENCH_DATA_CONNECTIONS ?? 4);
const ANALYZE = process.env.BENCH_DATA_ANALYZE !== '0';
/** The goal: each read's p50 and p99 for the large partner within this factor of the small partner's. */
const FLAT_FACTOR = 1.5;
/** A read of no partner data, measured beside the others: its ratio is the machine's own drift between the sizes. */
const CONTROL_READ = 'GET /assets (control)';
/** The status of the filtered list rows: a sixth of the seeded swaps. */
const FILTER_STATUS = 'refunded';
/** The default page sizes of GET /swaps and GET /permanent-routes/{id}/deposits, plus the one row that tells whether there is a next page. */
const SWAP_PAGE_ROWS = 21;
const DEPOSIT_PAGE_ROWS = 101;
/** Statements and plan lines longer than this (a deposit page with its orders, say) are shown cut. */
const SHOWN_CHARS = 300;
const root = path.resolve(import.meta.dirname, '../..');
const out = (line = '') => process.stdout.write(`${line}\n`);

/** The ids the seed and the reads hang on. */
interface Ids {
  partnerId: string;
  swapId: string;
  token: string;
  routeId: string;
  routeAddress: string;
}

/** Seeds the partner's swaps numbered `from`..`to` (older the higher the number), terminal statuses only. */
function seedSwapsSql(ids: Ids, base: string, from: number, to: number): string {
  return `
    insert into swaps (partner_id, external_user, source_asset, source_network, destination_asset, destination_network, destination,
      refund_mode, rate_type, source_amount, deposit_amount, expected_output_amount, quoted_rate, fee_usd, deposit_address,
      received_amount, required_confirmations, confirmation_count, quote_expires_at, expires_at, late_deposit_policy, status,
      terms_version, created_at, updated_at)
    select '${ids.partnerId}', 'seed-user-' || (g % 997), 'BTC', 'BTC', 'USDT', 'ETH', '${ETH_ADDRESS}', 'sender', 'floating',
      0.015, 0.015, 1000.5, 66700.12, 1.25, 'bench-seed-${ids.partnerId}-' || g, 0.015, 2, 2, t + interval '30 minutes',
      t + interval '1 day 30 minutes', 'refund', (array['finished', 'finished', 'finished', 'expired', '${FILTER_STATUS}', 'failed'])[1 + g % 6],
      '${TERMS_VERSION}', t, t
    from (select g, date_trunc('milliseconds', timestamptz '${base}' - g * interval '13 seconds') as t
          from generate_series(${from}, ${to}) as g) as seeded`;
}

/** Gives every seeded swap without a timeline `perSwap` events (waiting, confirming, ..., finished, cycling). */
function seedEventsSql(ids: Ids, perSwap: number): string {
  return `
    with steps (k, status, terminal, action_required, reason_code) as (values
      (0, 'waiting', false, 'customer', 'payment_required'), (1, 'confirming', false, 'none', 'confirming'),
      (2, 'confirming', false, 'none', 'confirming'), (3, 'exchanging', false, 'none', 'processing'),
      (4, 'sending', false, 'none', 'processing'), (5, 'finished', true, 'none', 'completed'))
    insert into swap_events (swap_id, status, terminal, action_required, retryable, reason_code, occurred_at)
    select s.id, st.status, st.terminal, st.action_required, false, st.reason_code, s.created_at + n * interval '1 minute'
    from swaps s
    cross join generate_series(1, ${perSwap}) as n
    join steps st on st.k = (n - 1) % 6
    where s.partner_id = '${ids.partnerId}' and s.deposit_address like 'bench-seed-%'
      and not exists (select 1 from swap_events e where e.swap_id = s.id)
    order by s.created_at, n`;
}

/** Seeds the route's deposits numbered `from`..`to`, each ordered into one of the seeded swaps. */
function seedDepositsSql(ids: Ids, base: string, from: number, to: number): string {
  return `
    with orders as (
      select id, row_number() over (order by created_at desc, id desc) as rn
      from swaps where partner_id = '${ids.partnerId}' and deposit_address like 'bench-seed-%'),
    order_count as (select count(*) as c from orders)
    insert into route_deposits (route_id, asset, network, address, tx_hash, output_index, from_address, amount, amount_base_units,
      broadcast_at, confirmation_count, required_confirmations, status, first_seen_at, last_seen_at, confirmed_at, order_id,
      created_at, updated_at)
    select '${ids.routeId}', 'BTC', 'BTC', '${ids.routeAddress}', 'bench-deposit-${ids.routeId}-' || g, 0, 'bench-sender', 0.01, '1000000',
      t, 2, 2, 'ordered', t, t, t, o.id, t, t
    from (select g, date_trunc('milliseconds', timestamptz '${base}' - g * interval '29 seconds') as t
          from generate_series(${from}, ${to}) as g) as d
    join orders o on o.rn = 1 + d.g % (select c from order_count)`;
}

/** Five deposits still waiting in the route's accumulation (what the deposits page lists on top), and their bucket. */
function seedAccumulatingSql(ids: Ids, base: string): string {
  return `
    with bucket as (
      insert into route_buckets (route_id, asset, network, accumulated_usd, threshold_usd, valued_at)
      values ('${ids.routeId}', 'BTC', 'BTC', 5, 20, timestamptz '${base}'))
    insert into route_deposits (route_id, asset, network, address, tx_hash, output_index, from_address, amount, amount_base_units,
      broadcast_at, confirmation_count, required_confirmations, status, first_seen_at, last_seen_at, confirmed_at,
      created_at, updated_at)
    select '${ids.routeId}', 'BTC', 'BTC', '${ids.routeAddress}', 'bench-accumulating-${ids.routeId}-' || g, 0, 'bench-sender', 0.0001, '10000',
      t, 2, 2, 'accumulating', t, t, t, t, t
    from (select g, timestamptz '${base}' - g * interval '1 second' as t from generate_series(1, 5) as g) as d`;
}

/** Brings a partner's data to `size` (rows already there count), timing each statement. */
async function seed(db: pg.Client, ids: Ids, base: string, size: typeof LARGE, timings: string[]): Promise<void> {
  const count = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0].n);
  const timed = async (what: string, sql: string) => {
    const started = performance.now();
    const result = await db.query(sql);
    const rows = result.command === 'INSERT' ? `${(result.rowCount ?? 0).toLocaleString('en-US')} rows ` : '';
    timings.push(`${what}: ${rows}in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  };
  const seeded = await count(
    `select count(*) as n from swaps where partner_id = '${ids.partnerId}' and deposit_address like 'bench-seed-%'`,
  );
  const all = await count(`select count(*) as n from swaps where partner_id = '${ids.partnerId}'`);
  if (all < size.swaps) await timed('swaps', seedSwapsSql(ids, base, seeded + 1, seeded + size.swaps - all));
  await timed('swap events', seedEventsSql(ids, Math.max(1, Math.round(size.events / size.swaps))));
  const deposits = await count(`select count(*) as n from route_deposits where route_id = '${ids.routeId}' and status = 'ordered'`);
  if (deposits === 0) await timed('accumulating deposits', seedAccumulatingSql(ids, base));
  if (deposits < size.deposits) await timed('route deposits', seedDepositsSql(ids, base, deposits + 1, size.deposits));
}

/** What each read is and how a request for it is made, at one size (the deep cursors depend on the size). */
interface Read {
  label: string;
  call: Call;
}

/** The row at the middle of a newest-first list: where a deep cursor points. */
async function middle(db: pg.Client, table: string, where: string): Promise<{ c: string; i: string }> {
  const n = Number((await db.query<{ n: string }>(`select count(*) as n from ${table} where ${where}`)).rows[0].n);
  const { rows } = await db.query<{ created_at: Date; id: string }>(
    `select created_at, id from ${table} where ${where} order by created_at desc, id desc offset ${Math.floor(n / 2)} limit 1`,
  );
  return { c: rows[0].created_at.toISOString(), i: rows[0].id };
}

async function readsAt(db: pg.Client, ids: Ids): Promise<Read[]> {
  const partner = `partner_id = '${ids.partnerId}'`;
  const deepAll = encodeCursor(await middle(db, 'swaps', partner));
  const deepFiltered = encodeCursor(await middle(db, 'swaps', `${partner} and status = '${FILTER_STATUS}'`), FILTER_STATUS);
  const deepDeposits = encodeCursor(await middle(db, 'route_deposits', `route_id = '${ids.routeId}'`), ids.routeId);
  return [
    // Reads no partner data: how much the machine alone moved between the two measurements.
    { label: CONTROL_READ, call: { method: 'GET', path: '/assets', auth: 'public' } },
    { label: 'GET /swaps/{id} (token)', call: { method: 'GET', path: `/swaps/${ids.swapId}`, auth: { bearer: ids.token } } },
    { label: 'GET /swaps/{id} (signed)', call: signedCall('GET', `/swaps/${ids.swapId}`) },
    { label: 'GET /swaps (first page)', call: signedCall('GET', '/swaps') },
    { label: 'GET /swaps (deep cursor)', call: signedCall('GET', `/swaps?cursor=${deepAll}`) },
    { label: `GET /swaps?status=${FILTER_STATUS} (first page)`, call: signedCall('GET', `/swaps?status=${FILTER_STATUS}`) },
    {
      label: `GET /swaps?status=${FILTER_STATUS} (deep cursor)`,
      call: signedCall('GET', `/swaps?status=${FILTER_STATUS}&cursor=${deepFiltered}`),
    },
    { label: 'GET /permanent-routes/{id}/deposits (first page)', call: signedCall('GET', `/permanent-routes/${ids.routeId}/deposits`) },
    {
      label: 'GET /permanent-routes/{id}/deposits (deep cursor)',
      call: signedCall('GET', `/permanent-routes/${ids.routeId}/deposits?cursor=${deepDeposits}`),
    },
  ];
}

/** One read's latencies (ms) over a run, and the answers that were not 200. */
interface Latencies {
  ms: number[];
  failures: number;
  firstFailure?: string;
}

/** Sends `next()` requests, `CONNECTIONS` in flight, for `seconds`; times each from write to last byte. */
async function latencies(origin: string, next: () => Outgoing, seconds: number): Promise<Latencies> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const result: Latencies = { ms: [], failures: 0 };
  const until = performance.now() + seconds * 1000;
  const one = (request: Outgoing) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = http.request(`${origin}${request.path}`, { method: request.method, headers: request.headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          result.ms.push(performance.now() - started);
          if (res.statusCode !== 200) {
            result.failures++;
            result.firstFailure ??= `${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`;
          }
          resolve();
        });
      });
      req.on('error', (err) => {
        result.failures++;
        result.firstFailure ??= `connection error: ${err.message}`;
        resolve();
      });
      req.end(request.body);
    });
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) await one(next());
    }),
  );
  agent.destroy();
  return result;
}

/** p50 and p99 of each read at one size. */
type SizeFigures = Map<string, { p50: number; p99: number; count: number; failures: number; firstFailure?: string }>;

/** One partner's side of the comparison: who signs its requests and what its reads are. */
interface Side {
  target: Target;
  reads: Read[];
}

/**
 * Measures every read at both sizes: a warm-up of each, then the order small, large, large, small, half of
 * SECONDS per slot, so that a steady drift of the machine moves both sizes' samples alike. p50 and p99 are
 * taken over each size's two slots together.
 */
async function measureReads(small: Side, large: Side): Promise<[SizeFigures, SizeFigures]> {
  const figures: [SizeFigures, SizeFigures] = [new Map(), new Map()];
  for (const [i, read] of small.reads.entries()) {
    const next = [nextOf(read.call, small.target), nextOf(large.reads[i].call, large.target)];
    const runs: [Latencies[], Latencies[]] = [[], []];
    for (const side of [0, 1]) await latencies(small.target.origin, next[side], WARMUP_SECONDS);
    for (const side of [0, 1, 1, 0] as const) runs[side].push(await latencies(small.target.origin, next[side], SECONDS / 2));
    for (const side of [0, 1] as const) {
      const ms = runs[side].flatMap((r) => r.ms);
      figures[side].set(read.label, {
        p50: percentile(ms, 50),
        p99: percentile(ms, 99),
        count: ms.length,
        failures: runs[side].reduce((n, r) => n + r.failures, 0),
        firstFailure: runs[side].find((r) => r.firstFailure)?.firstFailure,
      });
    }
  }
  return figures;
}

/**
 * A knex that runs every statement on the direct connection `db` as a simple query, its bindings inlined,
 * and records it. Store functions run on it do what they do for the handlers (a read of several statements
 * records each), and the records are the handlers' own SQL. Simple queries only: on PGlite this connection
 * shares the one database session with the server, and extended-protocol messages of two connections must
 * not interleave (server/store/database.ts).
 */
function recordingKnex(db: pg.Client): { knex: Knex; statements: string[] } {
  const knex = knexFactory({ client: 'pg' });
  const client = knex.client as unknown as Record<string, unknown> & { _escapeBinding(value: unknown): string };
  const literal = (value: unknown) => client._escapeBinding(value instanceof Date ? value.toISOString() : value);
  const statements: string[] = [];
  client.acquireConnection = async () => ({});
  client.releaseConnection = async () => undefined;
  client._query = async (_connection: unknown, query: { sql: string; bindings: unknown[] }) => {
    const sql = query.sql.replace(/\$(\d+)/g, (_m, n: string) => literal(query.bindings[Number(n) - 1]));
    statements.push(sql);
    return { ...query, response: await db.query(sql) };
  };
  return { knex, statements };
}

/** The statements behind each read, as the store functions the handlers call build them. */
async function handlerStatements(db: pg.Client, ids: Ids): Promise<Array<{ read: string; sql: string }>> {
  const { knex, statements } = recordingKnex(db);
  const taken: Array<{ read: string; sql: string }> = [];
  const readSwapPage = createSwapPageReader(knex);
  const readSwapView = createSwapViewReader(knex);
  const capture = async (read: string, work: () => Promise<unknown>) => {
    statements.length = 0;
    await work();
    statements.forEach((sql, i) =>
      taken.push({ read: statements.length > 1 ? `${read}, statement ${i + 1} of ${statements.length}` : read, sql }),
    );
  };
  const position = async (table: string, where: string) => {
    const { c, i } = await middle(db, table, where);
    return { createdAt: new Date(c), id: i };
  };
  const partner = `partner_id = '${ids.partnerId}'`;
  const deepAll = await position('swaps', partner);
  const deepFiltered = await position('swaps', `${partner} and status = '${FILTER_STATUS}'`);
  const deepDeposits = await position('route_deposits', `route_id = '${ids.routeId}'`);
  await capture('GET /swaps/{id} (token)', () => readSwapView(ids.swapId));
  await capture('GET /swaps/{id} (signed)', () => readSwapView(ids.swapId, ids.partnerId));
  await capture('GET /swaps (first page)', () => readSwapPage(ids.partnerId, { limit: SWAP_PAGE_ROWS }));
  await capture('GET /swaps (deep cursor)', () => readSwapPage(ids.partnerId, { limit: SWAP_PAGE_ROWS, after: deepAll }));
  await capture(`GET /swaps?status=${FILTER_STATUS} (first page)`, () =>
    readSwapPage(ids.partnerId, { limit: SWAP_PAGE_ROWS, status: FILTER_STATUS }),
  );
  await capture(`GET /swaps?status=${FILTER_STATUS} (deep cursor)`, () =>
    readSwapPage(ids.partnerId, { limit: SWAP_PAGE_ROWS, status: FILTER_STATUS, after: deepFiltered }),
  );
  const readRouteDeposits = createRouteDepositsReader(knex);
  await capture('GET /permanent-routes/{id}/deposits (first page)', () =>
    readRouteDeposits(ids.partnerId, ids.routeId, { limit: DEPOSIT_PAGE_ROWS }),
  );
  await capture('GET /permanent-routes/{id}/deposits (deep cursor)', () =>
    readRouteDeposits(ids.partnerId, ids.routeId, { limit: DEPOSIT_PAGE_ROWS, after: deepDeposits }),
  );
  await knex.destroy();
  return taken;
}

const ms = (value: number) => value.toFixed(2);
const cut = (text: string) => (text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)} ...` : text);

function printTable(reads: string[], small: SizeFigures, large: SizeFigures, sizes: string[]): string[] {
  const header = [
    'read',
    `${sizes[0]}: p50 ms`,
    'p99 ms',
    `${sizes[1]}: p50 ms`,
    'p99 ms',
    'p50 ratio',
    'p99 ratio',
    `within ${FLAT_FACTOR}x`,
  ];
  const lines = [header];
  const notMet: string[] = [];
  for (const read of reads) {
    const a = small.get(read)!;
    const b = large.get(read)!;
    const p50 = b.p50 / a.p50;
    const p99 = b.p99 / a.p99;
    const met = p50 <= FLAT_FACTOR && p99 <= FLAT_FACTOR;
    if (!met && read !== CONTROL_READ) notMet.push(read);
    const verdict = read === CONTROL_READ ? '(control)' : met ? 'met' : 'NOT MET';
    lines.push([read, ms(a.p50), ms(a.p99), ms(b.p50), ms(b.p99), `${p50.toFixed(2)}x`, `${p99.toFixed(2)}x`, verdict]);
  }
  const widths = header.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  const render = (l: string[]) => `| ${l.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(' | ')} |`;
  out(render(header));
  out(`|${widths.map((w, i) => (i === 0 ? ` ${'-'.repeat(w)} ` : ` ${'-'.repeat(w - 1)}: `)).join('|')}|`);
  for (const l of lines.slice(1)) out(render(l));
  return notMet;
}

async function main(): Promise<void> {
  const started = performance.now();
  // No route poll during the run: the seeded deposits stay as seeded. A secrets key of our own, so that the
  // second partner can be provisioned here, sealed as the server reads it.
  const secretsKey = randomBytes(32);
  const server = await startServerProcess(root, { env: { ROUTE_POLL_SECONDS: '3600', SECRETS_KEY: secretsKey.toString('hex') } });
  const db = new pg.Client(await server.connection());
  let failed = false;
  try {
    await db.connect();
    const provisioning = recordingKnex(db).knex;
    const large = await provisionPartner(provisioning, createSecretBox(secretsKey), { name: 'Bench large partner', mode: 'sandbox' });
    await provisioning.destroy();
    const signers: SignerOptions[] = [server.signer, { ...server.signer, keyId: large.keyId, secret: large.secret }];
    // Each partner's swap and route, made through the API; their histories are seeded around them.
    const ids: Ids[] = [];
    for (const signer of signers) {
      const client = swapClient(server.origin, signer);
      const created = await client.create();
      await client.waitFor(created.order.id, (o) => !!o.depositAddress, 60_000);
      const route = await createVerifiedRoute(client, signer.user!);
      const { rows } = await db.query<{ partner_id: string }>(`select partner_id from swaps where id = '${created.order.id}'`);
      ids.push({
        partnerId: rows[0].partner_id,
        swapId: created.order.id,
        token: created.accessToken,
        routeId: route.route_id,
        routeAddress: route.addresses['BTC/BTC'],
      });
    }
    const base = new Date(Date.now() - 60_000).toISOString();
    const sizeNames: string[] = [];
    const timings: string[] = [];
    for (const [i, size] of [SMALL, LARGE].entries()) {
      const log: string[] = [];
      const seedStarted = performance.now();
      await seed(db, ids[i], base, size, log);
      const counts = (
        await db.query<{ swaps: string; events: string; deposits: string }>(
          `select (select count(*) from swaps where partner_id = '${ids[i].partnerId}') as swaps,
                  (select count(*) from swap_events e join swaps s on s.id = e.swap_id where s.partner_id = '${ids[i].partnerId}') as events,
                  (select count(*) from route_deposits where route_id = '${ids[i].routeId}') as deposits`,
        )
      ).rows[0];
      const name = `${Number(counts.swaps).toLocaleString('en-US')} swaps`;
      sizeNames.push(name);
      timings.push(
        `${i === 0 ? 'small' : 'large'} partner: ${name}, ${Number(counts.events).toLocaleString('en-US')} events, ` +
          `${Number(counts.deposits).toLocaleString('en-US')} route deposits: seeded in ` +
          `${((performance.now() - seedStarted) / 1000).toFixed(1)} s (${log.join('; ')})`,
      );
      process.stderr.write(`${timings.at(-1)}\n`);
    }
    if (ANALYZE) {
      const analyzeStarted = performance.now();
      await db.query('vacuum analyze swaps, swap_events, route_deposits');
      timings.push(`vacuum analyze: ${((performance.now() - analyzeStarted) / 1000).toFixed(1)} s`);
    }
    process.stderr.write(`measuring reads at ${sizeNames.join(' and ')}\n`);
    const sides = await Promise.all(
      signers.map(async (signer, i) => ({
        target: { name: 'server', origin: server.origin, prefix: '/api/v1', signer },
        reads: await readsAt(db, ids[i]),
      })),
    );
    const reads = sides[0].reads.map((r) => r.label);
    const figures = await measureReads(sides[0], sides[1]);

    out(
      `Reads as data grows (${server.database}): a partner with ${sizeNames[0]} and one with ${sizeNames[1]} in one database; ` +
        `server in its own process; ${CONNECTIONS} requests in flight, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per read and size, ` +
        `measured small, large, large, small${ANALYZE ? '; VACUUM ANALYZE after seeding' : ''}`,
    );
    for (const t of timings) out(`  ${t}`);
    const notMet = printTable(reads, figures[0], figures[1], sizeNames);
    out();
    out(
      notMet.length === 0
        ? `G4 met: every read's p50 and p99 at ${sizeNames[1]} within ${FLAT_FACTOR}x of ${sizeNames[0]}`
        : `G4 not met for: ${notMet.join(', ')}`,
    );
    for (const [i, f] of figures.entries()) {
      for (const [read, v] of f) {
        if (v.failures > 0) {
          failed = true;
          out(`FAILED at ${sizeNames[i]}: ${read}: ${v.failures} of ${v.count} answers were not 200; first: ${v.firstFailure}`);
        }
      }
    }

    out();
    out(`Query plans at ${sizeNames[1]}: EXPLAIN (ANALYZE, BUFFERS) of the SQL the handlers run, through a direct connection`);
    for (const { read, sql } of await handlerStatements(db, ids[1])) {
      const plan = await db.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${sql}`);
      out();
      out(`-- ${read}`);
      out(cut(sql));
      for (const row of plan.rows) out(`  ${cut(row['QUERY PLAN'])}`);
    }
    out();
    out(`whole run: ${((performance.now() - started) / 60_000).toFixed(1)} min`);
  } catch (err) {
    process.stderr.write(`server output:\n${server.child.output().slice(-5000)}\n`);
    throw err;
  } finally {
    await db.end().catch(() => undefined);
    await server.stop();
  }
  if (failed) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
