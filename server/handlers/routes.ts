/**
 * Permanent routes (docs/architecture.md#routes-and-the-wallet-proof): ownership challenges, create-or-recover from a verified Zano wallet proof,
 * reads, the route's deposits with their accumulations, and the expect-deposit window. Deposits are found
 * and converted by the route service (services/routes.ts), which the poller (jobs/route-deposits.ts) calls.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { components } from '../../generated/api.js';
import { assetKey } from '../domain/catalog.js';
import { AppError } from '../domain/errors.js';
import { Money } from '../domain/money.js';
import { buildChallengeText } from '../domain/route-challenge.js';
import { bucketOf, toAccumulationBodies, toDepositBody, type BucketRecord } from '../domain/route-deposit-view.js';
import { decodeZanoAddress } from '../domain/zano-address.js';
import type { Handlers } from '../http/handler-types.js';
import { challengeRefusal } from '../store/route-challenge.js';
import {
  createChallengeReader,
  createChallengeWriter,
  createRoutePageReader,
  createRouteViewReader,
  createRouteWriter,
  createRouteDepositsReader,
  openExpectWindow,
  recoverRoute,
  type RouteAddressRecord,
  type RouteRecord,
  type RouteView,
} from '../store/routes.js';
import type { HandlerDeps } from './deps.js';
import { decodeCursor, encodeCursor, PAGE_POSITION, positionOf } from './cursors.js';
import { requirePartner } from './partner.js';

type PermanentRoute = components['schemas']['PermanentRoute'];

/** Bytes of randomness in a challenge nonce (rendered as 32 hex characters). */
export const CHALLENGE_NONCE_BYTES = 16;

/** Handlers for the route operations served so far. */
export function createRouteHandlers(
  deps: HandlerDeps,
): Pick<
  Handlers,
  'createRouteChallenge' | 'createPermanentRoute' | 'listPermanentRoutes' | 'getPermanentRoute' | 'listRouteDeposits' | 'expectRouteDeposit'
> {
  // Every catalogue asset that is not the destination can be paid into a route; assets that need a memo are
  // left out because a reusable address cannot carry one per payment.
  const sourcesFor = (destinationAsset: string, destinationNetwork: string) =>
    deps.catalog.assets.filter((a) => !a.memoNeeded && !(a.symbol === destinationAsset && a.network === destinationNetwork));

  const writeChallenge = createChallengeWriter(deps.knex);
  const readChallenge = createChallengeReader(deps.knex);
  const createRoute = createRouteWriter(deps.knex, deps.jobs.startRoutes, deps.config.routeMaxPerPartner);
  const readRoutePage = createRoutePageReader(deps.knex);
  const readRouteView = createRouteViewReader(deps.knex);
  const readRouteDeposits = createRouteDepositsReader(deps.knex);
  const notFound = () => new AppError(404, 'not_found', 'No such permanent route.');
  const toBody = (view: RouteView): PermanentRoute => toRouteBody(view.route, view.addresses, view.buckets);

  async function ownedRoute(partnerId: string, id: string): Promise<RouteView> {
    const view = await readRouteView(partnerId, id);
    if (!view) throw notFound();
    return view;
  }

  const invalidChallenge = (why: string) =>
    new AppError(400, 'invalid_challenge', `The challenge cannot be used: ${why}. Request a new one.`);

  /**
   * Reads the challenge a route request names and throws invalid_challenge saying what is wrong with it: the
   * first condition of the challenge rule that fails (store/route-challenge.ts, the one source the statement
   * that spends a challenge is generated from); returns when nothing is.
   */
  async function checkChallenge(
    target: ReturnType<typeof settlementTarget>,
    body: { challengeId: string; message: string },
    at: Date,
  ): Promise<void> {
    const why = challengeRefusal(await readChallenge(body.challengeId), { ...target, createdAt: at, message: body.message });
    if (why !== undefined) throw invalidChallenge(why);
  }

  return {
    async createRouteChallenge({ partner, body }) {
      const { partnerId, user } = requirePartner(partner);
      try {
        decodeZanoAddress(body.destinationAddress);
      } catch (err) {
        throw new AppError(400, 'invalid_settlement_target', `destinationAddress cannot receive a settlement: ${(err as Error).message}`, {
          field: 'destinationAddress',
        });
      }
      const issuedAt = deps.now();
      const expiresAt = new Date(issuedAt.getTime() + deps.config.challengeTtlSeconds * 1000);
      const text = buildChallengeText({
        origin: deps.config.publicOrigin,
        address: body.destinationAddress,
        asset: body.destinationAsset,
        network: body.destinationNetwork,
        user,
        nonce: randomBytes(CHALLENGE_NONCE_BYTES).toString('hex'),
        issuedAt,
        expiresAt,
      });
      const challenge = {
        id: randomUUID(),
        ...settlementTarget(partnerId, user, body),
        label: body.label ?? null,
        text,
        expiresAt,
        createdAt: issuedAt,
      };
      await writeChallenge(challenge);
      return {
        status: 201,
        body: { challenge_id: challenge.id, challenge: challenge.text, expires_at: challenge.expiresAt.toISOString() },
      };
    },

    async createPermanentRoute({ partner, body }) {
      const { partnerId, user } = requirePartner(partner);
      if (deps.routesUnavailable) throw new AppError(409, 'route_unavailable', deps.routesUnavailable);
      if (body.externalUserId !== user) {
        throw new AppError(400, 'external_user_mismatch', 'externalUserId must equal the x-service-user header of this request.', {
          externalUserId: body.externalUserId,
        });
      }
      // A settlement wallet screening does not allow is refused before its proof is checked.
      await deps.screening?.requireAllowed(
        [{ field: 'destinationAddress', network: body.destinationNetwork, address: body.destinationAddress, role: 'destination' }],
        { operation: 'createPermanentRoute', partnerId },
      );
      const at = deps.now();
      const target = settlementTarget(partnerId, user, body);
      // The challenge is checked by the statement that spends it, so a create reads nothing first: the wallet's
      // signature is checked (on the crypto thread), then one statement spends the challenge if it may be spent
      // on this route and stores the route. Only a refusal reads the challenge, to say what is wrong with it;
      // its refusals come before the signature's, in the order the spec lists the checks.
      const proof = await deps.crypto.verifyZanoProof({
        address: body.destinationAddress,
        message: body.message,
        publicKey: body.publicKey,
        signature: body.signature,
      });
      if (!proof.ok) {
        await checkChallenge(target, body, at);
        throw new AppError(403, 'ownership_not_verified', `The wallet signature does not prove ownership: ${proof.reason}.`);
      }
      const terms = deps.catalog.routes;
      const route = {
        id: randomUUID(),
        ...target,
        // null: the challenge's label (the statement fills it in).
        label: body.label ?? null,
        feePercent: terms.feePercent,
        feeFloorUsd: terms.feeFloorUsd,
        minSwapUsd: terms.minSwapUsd,
        maxAutoSwapUsd: terms.maxAutoSwapUsd,
        nextPollAt: new Date(at.getTime() + deps.config.routePollSeconds * 1000),
        assetKeys: sourcesFor(body.destinationAsset, body.destinationNetwork).map(assetKey).sort(),
        createdAt: at,
      };
      // One transaction spends the challenge, stores the route and queues its allocation (store/routes.ts). The
      // partner may have a route for this user and target already: a statement then spends the
      // challenge on that one and reads it with its addresses and waiting deposits.
      const created = await createRoute({ route, challengeId: body.challengeId, message: body.message });
      if (created.outcome === 'created') {
        return { status: 201, body: toBody(created.view) };
      }
      if (created.outcome === 'route_limit_reached') {
        const limit = deps.config.routeMaxPerPartner;
        throw new AppError(
          409,
          'route_limit_reached',
          `This partner has ${limit} permanent routes, the most it may have. Recovering an existing route still works.`,
          { limit },
        );
      }
      if (created.outcome === 'challenge_refused') {
        await checkChallenge(target, body, at);
        // A challenge changes only by being spent, which the read shows; this answers it should it not.
        throw invalidChallenge('it was already used');
      }
      const recovered = await recoverRoute(deps.knex, body.challengeId, at, route);
      if (!recovered) throw invalidChallenge('it was already used');
      return { status: 201, body: toBody(recovered) };
    },

    async listPermanentRoutes({ partner, query }) {
      const { partnerId } = requirePartner(partner);
      // 100 without limit, as every list the requirement shows unpaged (spec: "Lists and paging").
      const limit = query.limit ?? 100;
      const after = query.cursor === undefined ? undefined : positionOf(decodeCursor(query.cursor, undefined, PAGE_POSITION));
      const rows = await readRoutePage(partnerId, { limit: limit + 1, after });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1]?.route;
      return {
        status: 200,
        body: {
          routes: page.map(toBody),
          next_cursor: rows.length > limit && last ? encodeCursor({ c: last.createdAt.toISOString(), i: last.id }) : null,
        },
      };
    },

    async getPermanentRoute({ partner, path }) {
      return { status: 200, body: toBody(await ownedRoute(requirePartner(partner).partnerId, path.id)) };
    },

    async listRouteDeposits({ partner, path, query }) {
      const { partnerId } = requirePartner(partner);
      // 100 without limit, as every list the requirement shows unpaged (spec: "Lists and paging").
      const limit = query.limit ?? 100;
      // A cursor names its route: one made for another route is refused, but only once this one is known to exist.
      let after: { createdAt: Date; id: string } | undefined;
      let badCursor: unknown;
      try {
        after = query.cursor === undefined ? undefined : positionOf(decodeCursor(query.cursor, path.id.toLowerCase(), PAGE_POSITION));
      } catch (err) {
        badCursor = err;
      }
      // The buckets and the page in one statement, so from one snapshot (store/routes.ts createRouteDepositsReader).
      const found = await readRouteDeposits(partnerId, path.id, { limit: badCursor ? 0 : limit + 1, after });
      if (!found) throw notFound();
      if (badCursor) throw badCursor;
      const { route, buckets, page: rows } = found;
      const page = rows.slice(0, limit);
      const last = page[page.length - 1]?.deposit;
      return {
        status: 200,
        body: {
          route_id: route.id,
          accumulations: toAccumulationBodies(buckets),
          deposits: page.map(({ deposit, order }) => toDepositBody(deposit, order, order ? null : bucketOf(deposit, buckets))),
          next_cursor: rows.length > limit && last ? encodeCursor({ c: last.createdAt.toISOString(), i: last.id }, route.id) : null,
        },
      };
    },

    async expectRouteDeposit({ partner, path }) {
      const { partnerId } = requirePartner(partner);
      const at = deps.now();
      const until = new Date(at.getTime() + deps.config.expectDepositSeconds * 1000);
      // Due at once (a payment already made is found now), then polled at the faster interval until `until`.
      // One update, of the partner's own route only: it waits for a poll holding the route, as a locked read would.
      if (!(await openExpectWindow(deps.knex, partnerId, path.id, until, at))) throw notFound();
      deps.jobs.wakeRoutePolling();
      return { status: 200, body: { ok: true, expect_deposit_until: until.toISOString() } };
    },
  };
}

/** Whose and where a challenge is issued for and a route created for: the partner's user and the destination. */
function settlementTarget(
  partnerId: string,
  user: string,
  body: { destinationAsset: string; destinationNetwork: string; destinationAddress: string },
): Pick<RouteRecord, 'partnerId' | 'externalUser' | 'destinationAsset' | 'destinationNetwork' | 'destinationAddress'> {
  return {
    partnerId,
    externalUser: user,
    destinationAsset: body.destinationAsset,
    destinationNetwork: body.destinationNetwork,
    destinationAddress: body.destinationAddress,
  };
}

/** The PermanentRoute body of a route and its addresses; the fee includes the partner markup of its creation. */
function toRouteBody(route: RouteRecord, addresses: RouteAddressRecord[], buckets: BucketRecord[]): PermanentRoute {
  return {
    route_id: route.id,
    external_user_id: route.externalUser,
    destination_asset: route.destinationAsset as PermanentRoute['destination_asset'],
    destination_network: 'ZANO',
    destination_address: route.destinationAddress,
    ...(route.label !== null ? { label: route.label } : {}),
    status: route.status,
    addresses: Object.fromEntries(addresses.map((a) => [a.assetKey, a.address])),
    addresses_jws: route.addressesJws,
    fee: { percent: new Money(route.feePercent).plus(route.markupPercent).toNumber(), floor_usd: new Money(route.feeFloorUsd).toNumber() },
    min_swap_usd: new Money(route.minSwapUsd).toNumber(),
    max_auto_swap_usd: new Money(route.maxAutoSwapUsd).toNumber(),
    accumulations: toAccumulationBodies(buckets),
    expect_deposit_until: route.expectDepositUntil?.toISOString() ?? null,
    created_at: route.createdAt.toISOString(),
    updated_at: route.updatedAt.toISOString(),
  };
}
