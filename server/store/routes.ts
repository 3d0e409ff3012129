/** Permanent routes, their ownership challenges and their reusable deposit addresses. */
import type { Knex } from 'knex';
import { assetNetwork } from '../domain/catalog.js';
import type { BucketRecord, DepositOrder, DepositRecord } from '../domain/route-deposit-view.js';
import type { PolledRoute } from '../domain/route-poll.js';
import type { RouteToSign } from '../domain/signed-instructions.js';
import { FOREIGN_KEY_VIOLATION, guardRefusal, sqlState, UNIQUE_VIOLATION } from './errors.js';
import { columnArrays, groupCommit, groupCommitClaims, groupReadByUuid, groupReadRows, recordInsert } from './group-commit.js';
import { CHALLENGE_SPENDABLE } from './route-challenge.js';
import { BEFORE_ALL, fromJsonRow, fromRow, isUuid, pageKey } from './rows.js';

/** An ownership challenge as stored. */
export interface ChallengeRecord {
  id: string;
  partnerId: string;
  externalUser: string;
  destinationAsset: string;
  destinationNetwork: string;
  destinationAddress: string;
  label: string | null;
  text: string;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}

/** A permanent route as stored. Percentages and USD amounts are decimal strings. */
export interface RouteRecord extends PolledRoute {
  label: string | null;
  status: string;
  /** When the route's addresses are next looked at for deposits. */
  nextPollAt: Date | null;
  /** The compact JWS over its addresses and destination, once all its addresses are allocated (0034). */
  addressesJws: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The reusable deposit address of one of a route's asset keys, as its view shows it: its network's address,
 * or '' while allocating (the network has no stored address yet).
 */
export interface RouteAddressRecord {
  routeId: string;
  assetKey: string;
  network: string;
  address: string;
}

/** A challenge to store: its id is made by the caller, `usedAt` starts empty. */
export type NewChallenge = Omit<ChallengeRecord, 'usedAt'>;

const NEW_CHALLENGE_TYPES: Record<keyof NewChallenge, string> = {
  id: 'uuid',
  partnerId: 'uuid',
  externalUser: 'text',
  destinationAsset: 'text',
  destinationNetwork: 'text',
  destinationAddress: 'text',
  label: 'text',
  text: 'text',
  expiresAt: 'timestamptz',
  createdAt: 'timestamptz',
};
const INSERT_CHALLENGES = recordInsert<NewChallenge>('route_challenges', NEW_CHALLENGE_TYPES);

/**
 * Stores challenges; the ones issued while an insert runs are stored together by the next (group commit,
 * as quotes and nonce claims). Resolves once the caller's challenge is stored.
 */
export function createChallengeWriter(db: Knex): (challenge: NewChallenge) => Promise<void> {
  return groupCommit(async (challenges: NewChallenge[]) => {
    await db.raw(INSERT_CHALLENGES.sql, INSERT_CHALLENGES.params(challenges));
    return challenges.map(() => undefined);
  });
}

/** Reads challenges by id, if they exist, in groups (group-commit.ts groupReadByUuid). */
export function createChallengeReader(db: Knex): (id: string) => Promise<ChallengeRecord | undefined> {
  return groupReadByUuid(db, 'route_challenges', 'id', (row) => fromRow<ChallengeRecord>(row));
}

/** A route to create: its id is made by the caller; the partner's markup is read by the statement that stores it. */
export type NewRoute = Omit<
  RouteRecord,
  'status' | 'markupPercent' | 'expectDepositUntil' | 'nextPollAt' | 'activeAt' | 'updatedAt' | 'addressesJws'
> & {
  nextPollAt: Date;
};

// The route's columns in the order of CREATE_ROUTES's arrays (after the group position and the challenge;
// the asset keys come last, each route's joined with commas, because arrays of arrays must be rectangular).
const NEW_ROUTE_FIELDS = [
  'id',
  'partnerId',
  'externalUser',
  'destinationAsset',
  'destinationNetwork',
  'destinationAddress',
  'label',
  'feePercent',
  'feeFloorUsd',
  'minSwapUsd',
  'maxAutoSwapUsd',
  'nextPollAt',
  'createdAt',
] as const satisfies ReadonlyArray<keyof NewRoute>;

/**
 * What the creating statement did: stored the route, or why it did not (and then it wrote nothing):
 * `challenge_refused` when the challenge cannot be spent on this route (unknown, used, expired, issued to
 * another partner, user or target, or for another text), `route_exists` when the partner has a route for this
 * user and target, `route_limit_reached` when the route would take the partner past its quota.
 */
export type RouteCreation =
  { outcome: 'created'; view: RouteView } | { outcome: 'challenge_refused' | 'route_exists' | 'route_limit_reached' };

/**
 * When a create (its `input` row) may spend challenge `c`: the challenge rule, whose one source is the table
 * of store/route-challenge.ts. The SQL of SPENDABLE_CHALLENGES below and of pss_create_routes
 * (store/statement-functions.ts), and the reason a refused create is given (handlers/routes.ts), are derived
 * from it. It is exported here as well, beside the statements that apply it.
 */
export { CHALLENGE_SPENDABLE };

// For each create of the group (its position `i`): spends the challenge if it may (so the challenge needs no
// read before), then stores the route (only if it spent it) with the challenge's label unless the request
// named one, the partner's markup at this moment and its asset keys (addresses are stored once allocated).
// The creates of a group use distinct challenges and targets (createRouteWriter). Each partner's count of
// routes (partner_route_counts) grows by the routes it stored, only while it stays within the quota (the last
// argument); its row lock orders concurrent creates of one partner, so the quota is exact. Unless every create
// stored its route the statement fails as a whole through pss_route_not_created (migration 0009), naming for a
// lone create why, and nothing of it stays. A concurrent spend of the same challenge waits for this statement's
// commit, then finds it spent; a concurrent create for the same user and target waits for the first route's
// commit, then conflicts with it. The arrays make the call the same for any group's size.
//
// The statement is the body of pss_create_routes, so it is planned once per connection, not on every call
// (planning it took 0.5-2.8 ms, more than running it); it spends a challenge where CHALLENGE_SPENDABLE holds.
// Its text is generated by store/statement-functions.ts, and migrate() replaces the deployed function when
// that text changes: a change to the statement or to the challenge rule needs no migration.
const CREATE_ROUTES = `
  select r.outcome, (r.route).*, null::json as view_addresses, '[]'::json as view_buckets
    from pss_create_routes(?::int[], ?::uuid[], ?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
                           ?::numeric[], ?::numeric[], ?::numeric[], ?::numeric[], ?::timestamptz[], ?::timestamptz[], ?::text[],
                           ?::text[], ?::int) as r`;

// Which creates of a group may spend their challenges (positions `i`), read as CREATE_ROUTES would spend them.
const SPENDABLE_CHALLENGES = `
  select input.i
    from unnest(?::int[], ?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::timestamptz[], ?::text[])
      as input(i, challenge_id, partner_id, external_user, destination_asset, destination_network, destination_address, created_at, message)
    join route_challenges c on c.id = input.challenge_id
   where ${CHALLENGE_SPENDABLE}`;

// The SQLSTATE of pss_route_not_created (migration 0009).
const ROUTE_NOT_CREATED = 'PS002';

/** One create: the route (`label` null: the challenge's), and the challenge it spends with the text signed. */
export interface RouteCreate {
  route: NewRoute;
  challengeId: string;
  /** The challenge text the wallet signed: the challenge is spent only if it is its text. */
  message: string;
}

/**
 * Spends each create's challenge `c.challengeId` at `c.route.createdAt` and stores `c.route`, in one statement
 * on `db`; resolves with the routes' views, in order. The creates use distinct challenges and targets. Unless
 * every create stored its route the statement fails as a whole (nothing of it stays): routeRefusal tells why
 * from its error (for a group, one of its creates' reasons).
 */
export async function createRoutes(
  db: Knex,
  creates: RouteCreate[],
  /** ROUTE_MAX_PER_PARTNER: the most routes one partner may have. */
  maxRoutesPerPartner: number,
): Promise<RouteView[]> {
  const routes = creates.map((c) => c.route);
  const { rows } = await db.raw(CREATE_ROUTES, [
    creates.map((_, i) => i),
    creates.map((c) => c.challengeId),
    ...columnArrays(routes, NEW_ROUTE_FIELDS),
    routes.map((r) => r.assetKeys.join(',')),
    creates.map((c) => c.message),
    maxRoutesPerPartner,
  ]);
  const views = new Map<string, RouteView>();
  for (const { outcome: _created, ...columns } of rows as Array<{ outcome: 'created' }>) {
    const view = toRouteView(columns);
    views.set(view.route.id, view);
  }
  return creates.map((c) => views.get(c.route.id)!);
}

/** Why createRoutes stored nothing, when `err` is its refusal. */
export function routeRefusal(err: unknown): Exclude<RouteCreation['outcome'], 'created'> | undefined {
  return guardRefusal(err, ROUTE_NOT_CREATED, ['challenge_refused', 'route_exists', 'route_limit_reached'] as const);
}

/**
 * Returns `create(c)`: createRoutes for `c` (one statement), then, once committed, `started` with the routes
 * stored, which queues the job that allocates their addresses and never throws (a route left without one is
 * found by the engine's sweep of unstarted work, jobs/unstarted-sweep.ts). Anything but `created`
 * means nothing was written: the challenge cannot be spent on this route (the caller reads it to say why), or
 * the partner has a route for this user and target (recoverRoute then spends the challenge on it).
 *
 * The creates made while a transaction runs are written together by the next (group commit,
 * store/group-commit.ts). A create whose challenge or target an earlier create of the group also names is
 * written after the group, on its own, as it would have been after that create committed. When the group is
 * refused for a challenge, one read tells which creates' challenges cannot be spent: those are answered
 * `challenge_refused` and the others written together again. Otherwise, when the group refuses any create,
 * each is written again on its own, all at once, so every create gets its own answer (groupCommitClaims).
 */
export function createRouteWriter(
  db: Knex,
  started: (routes: Array<{ routeId: string; networks: string[] }>) => Promise<void>,
  /** ROUTE_MAX_PER_PARTNER: the most routes one partner may have. */
  maxRoutesPerPartner: number,
): (create: RouteCreate) => Promise<RouteCreation> {
  // Waits for locks as long as they are held (a create of the same challenge or target in progress commits
  // at once), alone or not.
  async function writeTogether(creates: RouteCreate[]): Promise<Array<RouteCreation>> {
    try {
      const views = await createRoutes(db, creates, maxRoutesPerPartner);
      await started(creates.map(({ route }) => ({ routeId: route.id, networks: route.assetKeys.map(assetNetwork) })));
      return views.map((view) => ({ outcome: 'created', view }));
    } catch (err) {
      const reason = routeRefusal(err);
      // A group's refusal names one of its creates' reasons, not each one's.
      if (reason && creates.length === 1) return [{ outcome: reason }];
      // A challenge that cannot be spent (expired while its wallet signed, brought again by a retry) is found
      // by one read and answered here, and the rest of the group written together, not each on its own.
      if (reason === 'challenge_refused') {
        const spendable = await spendableChallenges(creates);
        if (spendable.size < creates.length) {
          const rest = creates.filter((_, i) => spendable.has(i));
          const written = rest.length > 0 ? await writeTogether(rest) : [];
          let k = 0;
          return creates.map((_, i): RouteCreation => (spendable.has(i) ? written[k++] : { outcome: 'challenge_refused' }));
        }
      }
      throw err;
    }
  }

  async function spendableChallenges(creates: RouteCreate[]): Promise<Set<number>> {
    const routes = creates.map((c) => c.route);
    const { rows } = await db.raw(SPENDABLE_CHALLENGES, [
      creates.map((_, i) => i),
      creates.map((c) => c.challengeId),
      ...columnArrays(routes, ['partnerId', 'externalUser', 'destinationAsset', 'destinationNetwork', 'destinationAddress', 'createdAt']),
      creates.map((c) => c.message),
    ]);
    return new Set((rows as Array<{ i: number }>).map((row) => row.i));
  }

  return groupCommitClaims({
    claimsOf: ({ route, challengeId }: RouteCreate) => [
      `challenge ${challengeId}`,
      `target ${JSON.stringify([route.partnerId, route.externalUser, route.destinationAsset, route.destinationAddress])}`,
    ],
    writeTogether,
    created: (creation) => creation.outcome === 'created',
    // A challenge a create of the group spent is spent for good; any other repeat needs its own statement.
    repeatOutcome: (c, claimed) => (claimed.has(`challenge ${c.challengeId}`) ? { outcome: 'challenge_refused' } : undefined),
  });
}

/**
 * Spends challenge `challengeId` at `at` on the partner's existing route for this user and target, and reads
 * that route's view, in one statement: undefined when the challenge was spent meanwhile. Throws when there is
 * no such route (the create said there was one; routes are never deleted but with their partner).
 */
export async function recoverRoute(
  db: Knex,
  challengeId: string,
  at: Date,
  target: { partnerId: string; externalUser: string; destinationAsset: string; destinationAddress: string },
): Promise<RouteView | undefined> {
  const { rows } = await db.raw(
    `with existing as (
       select * from permanent_routes
        where partner_id = ?::uuid and external_user = ? and destination_asset = ? and destination_address = ?
     ), spent as (
       update route_challenges set used_at = ?::timestamptz
        where id = ?::uuid and used_at is null and exists (select from existing)
       returning id
     )
     select exists (select from spent) as spent, r.*, ${VIEW_COLUMNS} from existing r`,
    [target.partnerId, target.externalUser, target.destinationAsset, target.destinationAddress, at, challengeId],
  );
  if (rows.length === 0) throw new Error('route insert conflicted but no route matches its target');
  const { spent, ...route } = rows[0] as { spent: boolean };
  return spent ? toRouteView(route) : undefined;
}

/** A route with the rest of what its public view shows: its addresses and its waiting (accumulating) buckets. */
export interface RouteView {
  route: RouteRecord;
  addresses: RouteAddressRecord[];
  buckets: BucketRecord[];
}

// The view's other rows, read with the route in the same statement (a route read is one round trip, not
// three): the allocated addresses by network, waiting buckets by asset and network, each as JSON with its
// numeric columns cast to text (see fromJsonRow).
const VIEW_COLUMNS = `
  (select json_object_agg(a.network, a.address) from route_addresses a where a.route_id = r.id) as view_addresses,
  coalesce((select json_agg(to_jsonb(b) || jsonb_build_object('accumulated_usd', b.accumulated_usd::text,
                                                               'threshold_usd', b.threshold_usd::text)
                            order by b.asset, b.network)
              from route_buckets b where b.route_id = r.id), '[]') as view_buckets`;
const DEPOSIT_TIMESTAMPS = ['broadcastAt', 'firstSeenAt', 'lastSeenAt', 'confirmedAt', 'createdAt', 'updatedAt'] as const;

// A route's address for each of its asset keys (its network's): '' for a key whose address is not allocated yet.
function toRouteView(row: Record<string, unknown>): RouteView {
  const { view_addresses, view_buckets, ...columns } = row as {
    view_addresses: Record<string, string> | null;
    view_buckets: Array<Record<string, unknown>>;
  };
  const route = fromRow<RouteRecord>(columns);
  return {
    route,
    addresses: route.assetKeys.map((assetKey) => {
      const network = assetNetwork(assetKey);
      return { routeId: route.id, assetKey, network, address: view_addresses?.[network] ?? '' };
    }),
    buckets: view_buckets.map((b) => fromJsonRow<BucketRecord>(b, ['valuedAt'])),
  };
}

// The routes of a group of lookups (`l.i` their positions) that exist and are their partner's, each with its
// view columns: one primary-key lookup per route.
const ROUTE_VIEWS = `
  select l.i as "l:i", r.*, ${VIEW_COLUMNS}
    from unnest(?::int[], ?::uuid[], ?::uuid[]) as l(i, id, partner_id)
    join permanent_routes r on r.id = l.id and r.partner_id = l.partner_id`;

/**
 * Returns `read(partnerId, id)`: the partner's route `id` with its addresses and waiting deposits, if it
 * exists. The routes asked for while a read runs are read together by the next, a route asked for twice
 * once (group-commit.ts); each read starts after its requests arrived.
 */
export function createRouteViewReader(db: Knex): (partnerId: string, id: string) => Promise<RouteView | undefined> {
  const read = groupReadRows(db, ROUTE_VIEWS, {
    keyOf: (l: { partnerId: string; id: string }) => `${l.partnerId} ${l.id}`,
    params: (lookups) => [lookups.map((l) => l.id), lookups.map((l) => l.partnerId)],
    toRecord: toRouteView,
  });
  return async (partnerId, id) => (isUuid(id) ? (await read({ partnerId, id: id.toLowerCase() }))[0] : undefined);
}

// The routes of a group of deposit-page lookups (`l.i` their positions) that exist and are their partner's,
// each with its view columns and a page of its deposits, newest first after the lookup's position (BEFORE_ALL
// for the first page), each with what its order shows, as JSON (numeric columns cast to text).
const ROUTE_DEPOSIT_PAGES = `
  select l.i as "l:i", r.*, ${VIEW_COLUMNS},
         coalesce((select json_agg(p.entry order by p.created_at desc, p.id desc)
                     from (select d.created_at, d.id,
                                  to_jsonb(d) || jsonb_build_object('amount', d.amount::text,
                                                                    'order', (select jsonb_build_object('id', s.id, 'status', s.status,
                                                                                                        'settlement_tx_hash', s.settlement_tx_hash,
                                                                                                        'actual_output_amount', s.actual_output_amount::text)
                                                                                from swaps s where s.id = d.order_id)) as entry
                             from route_deposits d
                            where d.route_id = r.id and (d.created_at, d.id) < (l.after_created_at, l.after_id)
                            order by d.created_at desc, d.id desc
                            limit l.page) as p), '[]') as view_page
    from unnest(?::int[], ?::uuid[], ?::uuid[], ?::timestamptz[], ?::uuid[], ?::int[])
      as l(i, id, partner_id, after_created_at, after_id, page)
    join permanent_routes r on r.id = l.id and r.partner_id = l.partner_id`;

/** A deposit with the order it joined, if any. */
export interface DepositWithOrder {
  deposit: DepositRecord;
  order: DepositOrder | null;
}

/** Which page of a route's deposits to read: up to `limit` deposits, newest first, after `after`. */
export interface RouteDepositsLookup {
  limit: number;
  after?: { createdAt: Date; id: string };
}

/**
 * Returns `read(partnerId, id, lookup)`: the partner's route `id` with its view and a page of its deposits
 * with their orders, in one statement: one snapshot, so a poll committing meanwhile cannot show a deposit as
 * accumulating beside no bucket (or the other way round), and no transaction is held open for it. The pages
 * asked for while a read runs are read together by the next, an identical one (a partner polling its route)
 * once (group-commit.ts); each read starts after its requests arrived.
 */
export function createRouteDepositsReader(
  db: Knex,
): (partnerId: string, id: string, lookup: RouteDepositsLookup) => Promise<(RouteView & { page: DepositWithOrder[] }) | undefined> {
  const read = groupReadRows(db, ROUTE_DEPOSIT_PAGES, {
    keyOf: (l: RouteDepositsLookup & { partnerId: string; id: string }) => `${l.id} ${pageKey(l)}`,
    params: (lookups) => {
      const after = lookups.map((l) => l.after ?? BEFORE_ALL);
      return [
        lookups.map((l) => l.id),
        lookups.map((l) => l.partnerId),
        after.map((a) => a.createdAt),
        after.map((a) => a.id),
        lookups.map((l) => l.limit),
      ];
    },
    toRecord: (row) => {
      const { view_page, ...rest } = row as { view_page: Array<Record<string, unknown> & { order: Record<string, unknown> | null }> };
      return {
        ...toRouteView(rest),
        page: view_page.map(({ order, ...deposit }) => ({
          deposit: fromJsonRow<DepositRecord>(deposit, DEPOSIT_TIMESTAMPS),
          order: order ? fromRow<DepositOrder>(order) : null,
        })),
      };
    },
  });
  return async (partnerId, id, lookup) => (isUuid(id) ? (await read({ ...lookup, partnerId, id: id.toLowerCase() }))[0] : undefined);
}

/** Which page of a partner's routes to read: up to `limit` routes, newest first, after `after`. */
export interface RoutePageLookup {
  limit: number;
  after?: { createdAt: Date; id: string };
}

// The pages of a group of lookups (`i` their positions), each read as its own query would be: a scan of the
// partner's (partner_id, created_at, id) index from the position, as many routes as the page, each route with
// its view columns.
const ROUTE_PAGES = `
  select l.i as "l:i", r.*, ${VIEW_COLUMNS}
    from unnest(?::int[], ?::uuid[], ?::timestamptz[], ?::uuid[], ?::int[]) as l(i, partner_id, after_created_at, after_id, page)
   cross join lateral (
     select * from permanent_routes
      where permanent_routes.partner_id = l.partner_id
        and (permanent_routes.created_at, permanent_routes.id) < (l.after_created_at, l.after_id)
      order by permanent_routes.created_at desc, permanent_routes.id desc
      limit l.page) r
   order by l.i, r.created_at desc, r.id desc`;

/**
 * Returns `read(partnerId, lookup)`: a page of the partner's routes with their addresses and waiting deposits.
 * The pages asked for while a read runs are read together by the next (group commit, store/group-commit.ts)
 * in one statement, and a page asked for more than once in a group (the same partner, position and size: a
 * partner's poll of its first page) is read once, its records shared by the requests. Each read starts after
 * its requests arrived, so it sees every change committed before any of them was asked.
 */
export function createRoutePageReader(db: Knex): (partnerId: string, lookup: RoutePageLookup) => Promise<RouteView[]> {
  const read = groupReadRows(db, ROUTE_PAGES, {
    keyOf: pageKey,
    params: (lookups: Array<RoutePageLookup & { partnerId: string }>) => {
      const after = lookups.map((l) => l.after ?? BEFORE_ALL);
      return [lookups.map((l) => l.partnerId), after.map((a) => a.createdAt), after.map((a) => a.id), lookups.map((l) => l.limit)];
    },
    toRecord: toRouteView,
  });
  return (partnerId, lookup) => read({ ...lookup, partnerId });
}

/** A route's deposit address on one network, as stored once allocated: the assets of that network share it. */
export interface RouteNetworkAddress {
  routeId: string;
  network: string;
  address: string;
}

/**
 * The routes created before `createdBefore` that lack an address on one of their asset keys' networks, each
 * with those networks: their allocation job was never queued (the insert after their commit failed, or the
 * process died in between).
 */
export async function listUnallocatedRoutes(db: Knex, createdBefore: Date): Promise<Array<{ routeId: string; networks: string[] }>> {
  const { rows } = await db.raw(
    `select r.id as "routeId", array_agg(distinct n.network) as networks
       from permanent_routes r cross join unnest(r.asset_keys) as k(key)
       cross join lateral (select substr(k.key, strpos(k.key, '/') + 1) as network) n
      where r.created_at < ?
        and not exists (select from route_addresses a where a.route_id = r.id and a.network = n.network)
      group by r.id
     union all
     select r.id, '{}'::text[]
       from permanent_routes r
      where r.created_at < ? and r.addresses_jws is null
        and not exists (select from unnest(r.asset_keys) as k(key)
                         where not exists (select from route_addresses a
                                            where a.route_id = r.id and a.network = substr(k.key, strpos(k.key, '/') + 1)))`,
    [createdBefore, createdBefore],
  );
  return rows;
}

// Those of `routeIds` that have an address on every asset key's network and no `addresses_jws` yet, each with
// what its JWS signs.
async function listUnsignedRoutes(db: Knex, routeIds: string[]): Promise<RouteToSign[]> {
  if (routeIds.length === 0) return [];
  const { rows } = await db.raw(
    `select r.id, r.external_user, r.destination_asset, r.destination_network, r.destination_address, r.asset_keys,
            (select json_object_agg(a.network, a.address) from route_addresses a where a.route_id = r.id) as addresses
       from permanent_routes r
      where r.id = any(?::uuid[]) and r.addresses_jws is null`,
    [routeIds],
  );
  return (rows as Array<Record<string, unknown>>).flatMap((row) => {
    const byNetwork = (row.addresses ?? {}) as Record<string, string>;
    const keys = row.asset_keys as string[];
    if (keys.some((key) => !byNetwork[assetNetwork(key)])) return [];
    return [
      {
        routeId: row.id as string,
        externalUser: row.external_user as string,
        destinationAsset: row.destination_asset as string,
        destinationNetwork: row.destination_network as string,
        destinationAddress: row.destination_address as string,
        addresses: Object.fromEntries(keys.map((key) => [key, byNetwork[assetNetwork(key)]])),
      },
    ];
  });
}

// Stores each route's `addresses_jws` in one statement, leaving a route that has one already as it is (another
// instance's fill of the same route signed it first).
async function storeRouteSignatures(db: Knex, signatures: Array<{ routeId: string; jws: string }>): Promise<void> {
  if (signatures.length === 0) return;
  await db.raw(
    `update permanent_routes r set addresses_jws = given.jws
       from unnest(?::uuid[], ?::text[]) as given(id, jws)
      where r.id = given.id and r.addresses_jws is null`,
    [signatures.map((s) => s.routeId), signatures.map((s) => s.jws)],
  );
}

/** The allocated addresses of `routeIds`, by route and network. */
export async function listRouteAddresses(db: Knex, routeIds: string[]): Promise<RouteNetworkAddress[]> {
  if (routeIds.length === 0) return [];
  const rows = await db('route_addresses').whereIn('route_id', routeIds).orderBy(['route_id', 'network']);
  return rows.map((row) => fromRow<RouteNetworkAddress>(row));
}

/** The asset keys of routes `routeIds` (those that exist). */
export async function listRouteAssetKeys(db: Knex, routeIds: string[]): Promise<Array<{ routeId: string; assetKeys: string[] }>> {
  if (routeIds.length === 0) return [];
  const rows = (await db('permanent_routes').select('id', 'asset_keys').whereIn('id', routeIds)) as Array<{
    id: string;
    asset_keys: string[];
  }>;
  return rows.map((row) => ({ routeId: row.id, assetKeys: row.asset_keys }));
}

// The addresses of an allocation, as arrays of route ids, networks and addresses.
const GIVEN_ADDRESSES = `select * from unnest(?::uuid[], ?::text[], ?::text[]) as given(route_id, network, address)`;
// What refuses an allocation that is not the first for its rows, or whose route is gone.
const REFILL_CODES = new Set([UNIQUE_VIOLATION, FOREIGN_KEY_VIOLATION]);

/** Signs the routes a fill completed (domain/signed-instructions.ts): each one's `addresses_jws`. */
export type RouteAddressSigner = (routes: RouteToSign[]) => Array<{ routeId: string; jws: string }>;

/**
 * Stores the addresses `fills` names, of any number of routes: a row for each route and network. A job's
 * first run meets no row of its routes, so one plain insert stores them. A run that finds rows (a retried
 * job) keeps each allocated address and adds only the missing ones, and a route deleted with its partner
 * meanwhile is skipped: each is answered by the plain insert's refusal (rolled back to its savepoint), and a
 * second statement then inserts what is missing (the key and route checks of every row were what the plain
 * insert saves). In the same transaction, those of `routeIds` that now have every address and no
 * `addresses_jws` are signed by `sign` and their JWS stored, so no read sees a route's addresses complete and
 * unsigned (`routeIds` may name routes the fill does not touch: routes whose signature alone is missing).
 * Returns how many rows it wrote.
 */
export async function fillRouteAddresses(
  db: Knex,
  routeIds: string[],
  fills: RouteNetworkAddress[],
  sign: RouteAddressSigner,
): Promise<number> {
  if (fills.length === 0 && routeIds.length === 0) return 0;
  return db.transaction(async (trx) => {
    const written = await insertRouteAddresses(trx, fills);
    await storeRouteSignatures(trx, sign(await listUnsignedRoutes(trx, routeIds)));
    return written;
  });
}

async function insertRouteAddresses(trx: Knex.Transaction, fills: RouteNetworkAddress[]): Promise<number> {
  if (fills.length === 0) return 0;
  const arrays = [fills.map((f) => f.routeId), fills.map((f) => f.network), fills.map((f) => f.address)];
  try {
    const result = await trx.transaction((savepoint) =>
      savepoint.raw(`insert into route_addresses (route_id, network, address) ${GIVEN_ADDRESSES}`, arrays),
    );
    return result.rowCount ?? 0;
  } catch (err) {
    if (!REFILL_CODES.has(sqlState(err) ?? '')) throw err;
    const result = await trx.raw(
      `insert into route_addresses (route_id, network, address)
       select given.* from (${GIVEN_ADDRESSES}) as given
        where exists (select from permanent_routes r where r.id = given.route_id)
       on conflict (route_id, network) do nothing`,
      arrays,
    );
    return result.rowCount ?? 0;
  }
}

/** The route `id` locked for the caller's transaction (FOR UPDATE): deposits of one route are decided one poll at a time. */
export async function lockRoute(trx: Knex.Transaction, id: string): Promise<RouteRecord | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await trx('permanent_routes').where({ id }).forUpdate().first();
  return row ? fromRow<RouteRecord>(row) : undefined;
}

/**
 * Sets when route `id` is next polled, and, given `activeAt`, its last sign of life (internal to polling:
 * `updatedAt` stays).
 */
export async function updateRoutePolling(db: Knex, id: string, nextPollAt: Date, activeAt?: Date): Promise<void> {
  if (!isUuid(id)) return;
  await db('permanent_routes')
    .where({ id })
    .update({ next_poll_at: nextPollAt, ...(activeAt ? { active_at: activeAt } : {}) });
}

/**
 * Opens (or extends) the expect-deposit window of the partner's route `id` until `until`, and makes the route
 * due at `at`; false when the partner has no such route. The window is a hint for polling, so its commit
 * does not wait for the write-ahead log to reach the disk (synchronous_commit off until the end of the
 * transaction it runs in: the handler runs it alone, so for this statement only):
 * a crash may lose the last few milliseconds of windows, after which those routes are polled at their
 * regular interval. Calls for one route queue on its row lock, and each used to hold it for a disk flush.
 * One call of pss_open_expect_window (migration 0026), whose plan the connection keeps.
 */
export async function openExpectWindow(db: Knex, partnerId: string, id: string, until: Date, at: Date): Promise<boolean> {
  if (!isUuid(id)) return false;
  const { rows } = await db.raw(`select pss_open_expect_window(?::uuid, ?::uuid, ?::timestamptz, ?::timestamptz) as opened`, [
    partnerId,
    id,
    until,
    at,
  ]);
  return (rows as Array<{ opened: boolean }>)[0].opened;
}

/**
 * Up to `limit` active routes whose next poll has come: first those inside an expect-deposit window (a partner
 * awaits a payment there), then the rest; each the most overdue first. However large the backlog of idle
 * routes, a route whose window is open waits for at most one sweep.
 */
export async function listDueRoutes(db: Knex, at: Date, limit: number): Promise<string[]> {
  const due = () => db('permanent_routes').where({ status: 'active' }).andWhere('next_poll_at', '<=', at).orderBy('next_poll_at');
  const expecting: string[] = await due().andWhere('expect_deposit_until', '>', at).limit(limit).pluck('id');
  if (expecting.length === limit) return expecting;
  const backlog: string[] = await due()
    .andWhere((q) => q.whereNull('expect_deposit_until').orWhere('expect_deposit_until', '<=', at))
    .limit(limit - expecting.length)
    .pluck('id');
  return [...expecting, ...backlog];
}

/** When the next active route is due, if any route is active. */
export async function nextDuePoll(db: Knex): Promise<Date | undefined> {
  const row = await db('permanent_routes').where({ status: 'active' }).min({ next: 'next_poll_at' }).first();
  return row?.next ? new Date(row.next as Date) : undefined;
}

/**
 * Locks route `id` for a poll unless another worker holds it (SKIP LOCKED), and, when `dueAt` is given,
 * only if it is active and due at that moment.
 */
export async function lockDueRoute(trx: Knex.Transaction, id: string, dueAt?: Date): Promise<RouteRecord | undefined> {
  if (!isUuid(id)) return undefined;
  const query = trx('permanent_routes').where({ id, status: 'active' }).forUpdate().skipLocked().first();
  if (dueAt) query.andWhere('next_poll_at', '<=', dueAt);
  const row = await query;
  return row ? fromRow<RouteRecord>(row) : undefined;
}

/**
 * What a poll of route `id` may have to price, read without a lock before the poll's transaction (prices are
 * asked outside it): the route's destination and the assets of its deposits without an order (dust aside),
 * as asset keys. Undefined when the route is not active or, given `dueAt`, not due at that moment.
 */
export async function readPollPricing(
  db: Knex,
  id: string,
  dueAt?: Date,
): Promise<{ destinationKey: string; depositKeys: string[] } | undefined> {
  if (!isUuid(id)) return undefined;
  const depositKeys = db('route_deposits as d')
    .distinct(db.raw(`d.asset || '/' || d.network`))
    .whereRaw('d.route_id = r.id')
    .whereNull('d.order_id')
    .andWhereNot('d.status', 'dust');
  const query = db('permanent_routes as r')
    .where({ 'r.id': id, 'r.status': 'active' })
    .first(
      db.raw(`r.destination_asset || '/' || r.destination_network as destination_key`),
      db.raw('array(?) as deposit_keys', [depositKeys]),
    );
  if (dueAt) query.andWhere('r.next_poll_at', '<=', dueAt);
  const row = (await query) as { destination_key: string; deposit_keys: string[] } | undefined;
  return row ? { destinationKey: row.destination_key, depositKeys: row.deposit_keys } : undefined;
}
