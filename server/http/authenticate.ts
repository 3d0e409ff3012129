/**
 * Authentication, run after routing and before the body is parsed or validated (DESIGN 6.1): signed partner
 * requests are verified here, and req.partner is set for the handlers. An unauthenticated request is a 401
 * with its specific code whatever its body or query. The request's nonce is claimed later, by claimNonce,
 * once the key's rate limit has let the request through, so refused requests store nothing.
 */
import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import { checkTimestamp, computeSignature, nonceExpiry, parseSignedHeaders, signaturesMatch, unauthorized } from '../domain/signing.js';
import { partnerSecretOwner, type SecretBox } from '../store/secret-box.js';
import { findPartnerByKeyId } from '../store/partners.js';
import { claimNonce as storeNonce } from '../store/nonces.js';
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
export function authenticate(deps: AuthenticateDeps): RequestHandler {
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
      const verified = await verifySignedRequest(req, deps);
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
 * limit, so a request refused with 429 leaves no nonce row behind.
 */
export function claimNonce(knex: Knex, now: () => Date): RequestHandler {
  return async (req, _res, next) => {
    const pending = req.pendingNonce;
    if (!pending) return next();
    try {
      const fresh = await storeNonce(knex, pending.keyId, pending.nonce, now(), pending.expiresAt);
      if (!fresh) throw unauthorized('nonce_reused', 'This nonce was already used with this key; generate a new nonce for every request.');
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
): Promise<{ partner: AuthenticatedPartner; nonce: PendingNonce }> {
  const headers = parseSignedHeaders((name) => req.get(name));
  checkTimestamp(headers.timestamp, Math.floor(deps.now().getTime() / 1000));

  const partner = await findPartnerByKeyId(deps.knex, headers.keyId);
  if (!partner) throw unauthorized('unknown_key', `No partner key ${headers.keyId}; check x-service-key-id.`);

  const mismatch = () =>
    unauthorized(
      'invalid_signature',
      'The signature does not match the request. Sign the exact bytes you send, the path and query as sent, the upper-case method and the audience of this deployment.',
      { audience: deps.audience },
    );
  let secret: string;
  try {
    secret = deps.secretBox.open(partner.secretSealed, partnerSecretOwner(partner.keyId));
  } catch {
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
    nonce: { keyId: headers.keyId, nonce: headers.nonce, expiresAt: nonceExpiry(headers.timestamp) },
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
