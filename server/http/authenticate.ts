/**
 * Authentication, run after routing and before the body is parsed or validated (DESIGN 6.1): signed partner
 * requests are verified here, and req.partner is set for the handlers. An unauthenticated request is a 401
 * with its specific code whatever its body or query.
 */
import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import {
  checkTimestamp,
  computeSignature,
  NONCE_TTL_SECONDS,
  parseSignedHeaders,
  signaturesMatch,
  unauthorized,
} from '../domain/signing.js';
import type { SecretBox } from '../store/secret-box.js';
import { findPartnerByKeyId } from '../store/partners.js';
import { claimNonce } from '../store/nonces.js';
import type { AuthenticatedPartner } from './handler-types.js';

/** What authentication needs. */
export interface AuthenticateDeps {
  knex: Knex;
  secretBox: SecretBox;
  /** PUBLIC_ORIGIN: the audience every signature must name. */
  audience: string;
  now: () => Date;
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
        requireBearer(authorization);
        return next();
      }
      req.partner = await verifySignedRequest(req, deps);
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** Verifies the five signed headers of `req` and returns the partner they belong to; throws a 401 otherwise. */
export async function verifySignedRequest(req: Request, deps: AuthenticateDeps): Promise<AuthenticatedPartner> {
  const headers = parseSignedHeaders((name) => req.get(name));
  const now = deps.now();
  checkTimestamp(headers.timestamp, Math.floor(now.getTime() / 1000));

  const partner = await findPartnerByKeyId(deps.knex, headers.keyId);
  if (!partner) throw unauthorized('unknown_key', `No partner key ${headers.keyId}; check x-service-key-id.`);

  const expected = computeSignature(deps.secretBox.open(partner.secretSealed), {
    audience: deps.audience,
    method: req.method,
    pathAndQuery: req.originalUrl,
    timestamp: headers.timestamp,
    nonce: headers.nonce,
    keyId: headers.keyId,
    user: headers.user,
    body: req.rawBody,
  });
  if (!signaturesMatch(expected, headers.signatureHex)) {
    throw unauthorized(
      'invalid_signature',
      'The signature does not match the request. Sign the exact bytes you send, the path and query as sent, the upper-case method and the audience of this deployment.',
      { audience: deps.audience },
    );
  }
  if (partner.status !== 'active') throw unauthorized('partner_disabled', 'This partner key is disabled; contact support.');

  // Claimed last, so only correctly signed requests spend a nonce.
  const fresh = await claimNonce(deps.knex, headers.keyId, headers.nonce, now, new Date(now.getTime() + NONCE_TTL_SECONDS * 1000));
  if (!fresh) throw unauthorized('nonce_reused', 'This nonce was already used with this key; generate a new nonce for every request.');
  return { partnerId: partner.id, keyId: partner.keyId, user: headers.user };
}

// Swap access tokens are issued with swaps, which have not landed: no token exists yet, so every bearer
// token is refused. The swaps work replaces this with a lookup of the token's hash.
function requireBearer(authorization: string | undefined): void {
  if (!authorization) throw unauthorized('authentication_required', 'Send the swap access token: Authorization: Bearer sat_...');
  if (!BEARER.test(authorization)) throw unauthorized('invalid_token', 'The Authorization header must be "Bearer <swap access token>".');
  throw unauthorized('invalid_token', 'The bearer token is not a valid swap access token.');
}
