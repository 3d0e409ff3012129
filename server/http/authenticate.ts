/**
 * Authentication, run after routing and before the body is parsed or validated (docs/architecture.md#signed-requests): signed partner
 * requests are verified here, and req.partner is set for the handlers. An unauthenticated request is a 401
 * with its specific code whatever its body or query. The request's nonce is claimed later, by claimNonce,
 * once the key's rate limit has let the request through, so refused requests store nothing.
 *
 * Partners are cached per instance (the row and the opened secret), so verifying a signature reads nothing.
 * The cache is never trusted alone: the nonce claim, a database round trip every signed request makes anyway
 * (grouped with the claims of concurrent requests, store/nonces.ts), also returns the key's current version
 * (`updated_at`, which rotation and disabling change). When it differs, the entry is dropped and the request is verified again from the database, so a rotated secret or
 * a disabled key is refused on every instance from the next request on.
 */
import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import { checkTimestamp, computeSignature, nonceExpiry, parseSignedHeaders, signaturesMatch, unauthorized } from '../domain/signing.js';
import { partnerSecretOwner, type SecretBox } from '../store/secret-box.js';
import { findPartnerByKeyId, type PartnerRecord } from '../store/partners.js';
import type { NonceClaims } from '../store/nonces.js';
import type { AuthenticatedPartner } from './handler-types.js';

/** What authentication needs. */
export interface AuthenticateDeps {
  knex: Knex;
  secretBox: SecretBox;
  /** PUBLIC_ORIGIN: the audience every signature must name. */
  audience: string;
  now: () => Date;
}

/** The nonce of a verified request, claimed once the request has passed its rate limit. */
interface PendingNonce {
  keyId: string;
  nonce: string;
  expiresAt: Date;
  /** The version (`updated_at`, ms) of the partner row the request was verified against. */
  partnerVersion: number;
}

/** A partner as authentication caches it: the row, and its secret opened (null when it does not open). */
interface CachedPartner {
  record: PartnerRecord;
  secret: string | null;
}

/** This instance's partners by key id; entries are checked against the database on every nonce claim. */
export type PartnerCache = ReturnType<typeof createPartnerCache>;

/** Creates an empty partner cache. */
export function createPartnerCache(deps: Pick<AuthenticateDeps, 'knex' | 'secretBox'>) {
  const entries = new Map<string, CachedPartner>();
  return {
    /** The partner of `keyId` (from the cache, else the database), or undefined for an unknown key. */
    async get(keyId: string): Promise<CachedPartner | undefined> {
      const cached = entries.get(keyId);
      if (cached) return cached;
      const record = await findPartnerByKeyId(deps.knex, keyId);
      if (!record) return undefined;
      let secret: string | null;
      try {
        secret = deps.secretBox.open(record.secretSealed, partnerSecretOwner(record.keyId));
      } catch {
        secret = null;
      }
      const entry = { record, secret };
      entries.set(keyId, entry);
      return entry;
    },
    /** Whether `keyId` is cached. */
    has(keyId: string): boolean {
      return entries.has(keyId);
    },
    /** Forgets `keyId` (its row changed). */
    evict(keyId: string): void {
      entries.delete(keyId);
    },
  };
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by authentication for a correctly signed request; claimNonce spends it. */
    pendingNonce?: PendingNonce;
    /** A well-formed swap access token from `Authorization: Bearer`, not yet checked against a swap. */
    bearerToken?: string;
  }
}

const BEARER = /^Bearer\s+(\S+)$/i;

/** The authentication middleware for every operation of the spec. */
export function authenticate(deps: AuthenticateDeps, cache: PartnerCache = createPartnerCache(deps)): RequestHandler {
  return async (req, _res, next) => {
    try {
      const security = req.operation?.security ?? 'public';
      if (security === 'public') return next();
      const authorization = req.get('authorization');
      if (security === 'token' || (security === 'tokenOrSigned' && authorization)) {
        // The token names one swap; the handler checks it against the path's swap id.
        req.bearerToken = readBearer(authorization);
        return next();
      }
      const verified = await verifySignedRequest(req, deps, cache);
      req.partner = verified.partner;
      req.pendingNonce = verified.nonce;
      next();
    } catch (err) {
      next(err);
    }
  };
}

/**
 * Spends the verified request's nonce: a (key id, nonce) pair is accepted once. Runs after the key's rate
 * limit, so a request refused with 429 leaves no nonce row behind. When the partner row changed since it
 * was cached, the request is verified again against the row as it is now.
 */
export function claimNonce(deps: AuthenticateDeps, cache: PartnerCache, nonces: NonceClaims): RequestHandler {
  return async (req, _res, next) => {
    const pending = req.pendingNonce;
    if (!pending) return next();
    try {
      const claim = await nonces.claim(pending.keyId, pending.nonce, pending.expiresAt);
      if (claim.partner?.updatedAt.getTime() !== pending.partnerVersion) {
        cache.evict(pending.keyId);
        await verifySignedRequest(req, deps, cache);
      }
      if (!claim.fresh)
        throw unauthorized('nonce_reused', 'This nonce was already used with this key; generate a new nonce for every request.');
      next();
    } catch (err) {
      next(err);
    }
  };
}

/**
 * Verifies the five signed headers of `req` and returns the partner they belong to, with the nonce still to
 * be claimed; throws a 401 otherwise.
 */
export async function verifySignedRequest(
  req: Request,
  deps: AuthenticateDeps,
  cache: PartnerCache,
): Promise<{ partner: AuthenticatedPartner; nonce: PendingNonce }> {
  try {
    return await verifyAgainst(req, deps, cache);
  } catch (err) {
    // A refusal is never decided on a cached row alone: the key may have been re-enabled or its secret
    // rotated since. Verify once more against the row as it is now.
    const keyId = req.get('x-service-key-id');
    if (!keyId || !cache.has(keyId)) throw err;
    cache.evict(keyId);
    return verifyAgainst(req, deps, cache);
  }
}

async function verifyAgainst(
  req: Request,
  deps: AuthenticateDeps,
  cache: PartnerCache,
): Promise<{ partner: AuthenticatedPartner; nonce: PendingNonce }> {
  const headers = parseSignedHeaders((name) => req.get(name));
  checkTimestamp(headers.timestamp, Math.floor(deps.now().getTime() / 1000));

  const cached = await cache.get(headers.keyId);
  if (!cached) throw unauthorized('unknown_key', `No partner key ${headers.keyId}; check x-service-key-id.`);
  const partner = cached.record;

  const mismatch = () =>
    unauthorized(
      'invalid_signature',
      'The signature does not match the request. Sign the exact bytes you send, the path and query as sent, the upper-case method and the audience of this deployment.',
      { audience: deps.audience },
    );
  const secret = cached.secret;
  if (secret === null) {
    // Sealed under another SECRETS_KEY, or copied from another partner's row: no signature can match it.
    // The operator was told at start-up; one line here, no stack, and the refusal is counted like any other.
    req.log?.warn({ keyId: partner.keyId }, 'partner secret does not open under the current SECRETS_KEY; request refused');
    throw mismatch();
  }
  const expected = computeSignature(secret, {
    audience: deps.audience,
    method: req.method,
    pathAndQuery: req.originalUrl,
    timestamp: headers.timestamp,
    nonce: headers.nonce,
    keyId: headers.keyId,
    user: headers.user,
    body: req.rawBody,
  });
  if (!signaturesMatch(expected, headers.signatureHex)) throw mismatch();
  if (partner.status !== 'active') throw unauthorized('partner_disabled', 'This partner key is disabled; contact support.');
  return {
    partner: { partnerId: partner.id, keyId: partner.keyId, user: headers.user },
    nonce: {
      keyId: headers.keyId,
      nonce: headers.nonce,
      expiresAt: nonceExpiry(headers.timestamp),
      partnerVersion: partner.updatedAt.getTime(),
    },
  };
}

// A swap access token is `sat_` and 20-124 of [A-Za-z0-9_-] (the spec's pattern); anything else is refused here.
const TOKEN = /^sat_[A-Za-z0-9_-]{20,124}$/;

function readBearer(authorization: string | undefined): string {
  if (!authorization) throw unauthorized('authentication_required', 'Send the swap access token: Authorization: Bearer sat_...');
  const match = BEARER.exec(authorization);
  if (!match) throw unauthorized('invalid_token', 'The Authorization header must be "Bearer <swap access token>".');
  if (!TOKEN.test(match[1])) throw unauthorized('invalid_token', 'The bearer token is not a swap access token.');
  return match[1];
}
