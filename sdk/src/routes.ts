/**
 * The `routes` namespace: permanent routes to a Zano wallet. An ownership challenge, create-or-recover from the
 * wallet's signature of it (by hand, or `createVerified` with a signing callback), and reads one page or every
 * page at a time; then a route's deposits and same-asset accumulations, one page or every page at a time, and
 * `expectDeposit`, which has the route's addresses polled faster while a payment is on its way.
 */
import type { Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/api.js';
import { allPages, toResult, type ApiResult } from './result.js';

type Schemas = components['schemas'];

/** Body of POST /permanent-routes/challenges: `destinationAsset` (ZANO or fUSD), `destinationNetwork` (ZANO), `destinationAddress`, `label?`. */
export type PermanentRouteTarget = Schemas['PermanentRouteTarget'];
/** Answer of POST /permanent-routes/challenges: `{ challenge_id, challenge, expires_at }`; sign `challenge` exactly. */
export type PermanentChallenge = Schemas['PermanentChallenge'];
/** Body of POST /permanent-routes: the target, `externalUserId`, `challengeId`, `message` and the wallet's `publicKey` and `signature`. */
export type PermanentRouteRequest = Schemas['PermanentRouteRequest'];
/** A permanent route: its deposit `addresses` per source asset, `fee`, limits and status. */
export type PermanentRoute = Schemas['PermanentRoute'];
/** One page of GET /permanent-routes: `{ routes, next_cursor }` (`next_cursor` null on the last page). */
export type PermanentRouteList = Schemas['PermanentRouteList'];
/** Query of routes.list: `limit` (1-1000, default 1000), `cursor` (a page's next_cursor). */
export type ListRoutesQuery = NonNullable<operations['listPermanentRoutes']['parameters']['query']>;
/** A deposit to a route address: confirmation progress, public `status` and, once converting, its `orderId`. */
export type PermanentDeposit = Schemas['PermanentDeposit'];
/** A same-asset bucket of confirmed deposits below the route's `min_swap_usd`, with what is still missing. */
export type PermanentAccumulation = Schemas['PermanentAccumulation'];
/** One page of GET /permanent-routes/{id}/deposits: `{ route_id, accumulations, deposits, next_cursor }`. */
export type PermanentDepositList = Schemas['PermanentDepositList'];
/** Answer of POST /permanent-routes/{id}/expect-deposit: `{ ok: true, expect_deposit_until }`. */
export type PermanentDepositExpectation = Schemas['PermanentDepositExpectation'];
/** Query of routes.deposits: `limit` (1-500, default 100), `cursor` (a page's next_cursor). */
export type ListRouteDepositsQuery = NonNullable<operations['listRouteDeposits']['parameters']['query']>;

/** What a Zano wallet's `sign_message` returns, renamed: `publicKey` is its `pkey`, `signature` its `sig` (hex). */
export interface WalletSignature {
  /** The wallet's spend public key, 64 hex characters (`pkey`). */
  publicKey: string;
  /** The signature `c || r`, 128 hex characters (`sig`). */
  signature: string;
}

/** Signs the exact challenge text with the wallet that owns the destination address (e.g. its `sign_message` RPC). */
export type SignChallenge = (challengeText: string) => WalletSignature | Promise<WalletSignature>;

/** Input of routes.createVerified. */
export interface CreateVerifiedInput {
  /** Where the route settles: the destination asset, network and Zano address, and an optional label. */
  target: PermanentRouteTarget;
  /** Called once with the challenge text; resolves with the wallet's public key and signature of it. */
  sign: SignChallenge;
}

/** Permanent routes. */
export interface RoutesApi {
  /** POST /permanent-routes/challenges: a single-use text for the destination wallet to sign (600 s by default). */
  createChallenge(target: PermanentRouteTarget): Promise<ApiResult<PermanentChallenge>>;
  /** POST /permanent-routes: creates the route from a signed challenge, or recovers the existing one (201 either way). */
  create(request: PermanentRouteRequest): Promise<ApiResult<PermanentRoute>>;
  /**
   * Challenge, `sign`, create in one call, for the client's user: resolves with the create result, or with the
   * challenge's error value when the challenge is refused (e.g. `invalid_settlement_target`).
   */
  createVerified(input: CreateVerifiedInput): Promise<ApiResult<PermanentRoute>>;
  /** GET /permanent-routes/{id}: one of your routes; another partner's or an unknown id is `404 not_found`. */
  get(id: string): Promise<ApiResult<PermanentRoute>>;
  /** GET /permanent-routes: one page of your routes, newest first. */
  list(query?: ListRoutesQuery): Promise<ApiResult<PermanentRouteList>>;
  /** Every page of GET /permanent-routes, following next_cursor until null; an error page is yielded last. */
  listAll(filter?: Omit<ListRoutesQuery, 'cursor'>): AsyncGenerator<ApiResult<PermanentRouteList>, void, undefined>;
  /**
   * GET /permanent-routes/{id}/deposits: one page of the route's deposits, newest first; `accumulations`
   * describes the whole route on every page. Another partner's or an unknown route is `404 not_found`.
   */
  deposits(id: string, query?: ListRouteDepositsQuery): Promise<ApiResult<PermanentDepositList>>;
  /** Every page of GET /permanent-routes/{id}/deposits, following next_cursor until null; an error page is yielded last. */
  listAllDeposits(
    id: string,
    filter?: Omit<ListRouteDepositsQuery, 'cursor'>,
  ): AsyncGenerator<ApiResult<PermanentDepositList>, void, undefined>;
  /**
   * POST /permanent-routes/{id}/expect-deposit: polls the route's addresses at once, then faster until
   * `expect_deposit_until` (1800 s by default); calling again extends the window from now, so a call that
   * failed on the network may simply be repeated (the client does not retry it by itself: no Idempotency-Key).
   */
  expectDeposit(id: string): Promise<ApiResult<PermanentDepositExpectation>>;
}

/** What the routes namespace runs on. */
export interface RoutesDeps {
  /** The signed, retrying openapi-fetch client. */
  raw: Client<paths>;
  /** The client's user (x-service-user), sent as `externalUserId` by createVerified. */
  userId: string;
}

/** Builds the routes namespace. */
export function createRoutesApi({ raw, userId }: RoutesDeps): RoutesApi {
  const createChallenge: RoutesApi['createChallenge'] = (target) => toResult(raw.POST('/permanent-routes/challenges', { body: target }));
  const create: RoutesApi['create'] = (request) => toResult(raw.POST('/permanent-routes', { body: request }));
  const list: RoutesApi['list'] = (query = {}) => toResult(raw.GET('/permanent-routes', { params: { query } }));
  const deposits: RoutesApi['deposits'] = async (id, query = {}) => {
    requireId('routes.deposits', id);
    return toResult(raw.GET('/permanent-routes/{id}/deposits', { params: { path: { id }, query } }));
  };

  return {
    createChallenge,
    create,

    async createVerified(input) {
      const { target, sign } = input ?? ({} as Partial<CreateVerifiedInput>);
      if (target === null || typeof target !== 'object') throw new TypeError('routes.createVerified: target is required');
      if (typeof sign !== 'function')
        throw new TypeError('routes.createVerified: sign must be a function (challengeText) => { publicKey, signature }');
      const challenge = await createChallenge(target);
      if (challenge.error) return challenge;
      const proof = await sign(challenge.data.challenge);
      if (proof === null || typeof proof !== 'object' || typeof proof.publicKey !== 'string' || typeof proof.signature !== 'string') {
        // The usual slip: returning sign_message's own { sig, pkey } instead of renaming them.
        throw new TypeError(
          'routes.createVerified: sign must resolve with { publicKey, signature } (sign_message: pkey and sig) as hex strings',
        );
      }
      const { destinationAsset, destinationNetwork, destinationAddress, label } = target;
      return create({
        destinationAsset,
        destinationNetwork,
        destinationAddress,
        ...(label !== undefined ? { label } : {}),
        externalUserId: userId,
        challengeId: challenge.data.challenge_id,
        message: challenge.data.challenge,
        publicKey: proof.publicKey,
        signature: proof.signature,
      });
    },

    async get(id) {
      requireId('routes.get', id);
      return toResult(raw.GET('/permanent-routes/{id}', { params: { path: { id } } }));
    },

    list,

    listAll: (filter = {}) => allPages(list, filter),

    deposits,

    listAllDeposits: (id, filter = {}) => allPages((query) => deposits(id, query), filter),

    async expectDeposit(id) {
      requireId('routes.expectDeposit', id);
      return toResult(raw.POST('/permanent-routes/{id}/expect-deposit', { params: { path: { id } } }));
    },
  };
}

// An empty id would address another operation (e.g. GET /permanent-routes//deposits): misuse, not an API error.
function requireId(method: string, id: unknown): asserts id is string {
  if (typeof id !== 'string' || id.length === 0) throw new TypeError(`${method}: id must be a non-empty string`);
}
