/**
 * The ownership challenge of a permanent route (docs/architecture.md#routes-and-the-wallet-proof): the text a partner's user signs with the
 * destination wallet, so a proof is bound to this service, the target, the user and one short time window.
 * A wallet shows it before signing, so it reads as plain English. Exact layout: ten lines of ASCII joined
 * by LF ("\n"), no trailing newline, every value printed as handed in:
 *
 * ```
 * Partner Swap Service ownership challenge
 * Sign this text to prove you control the address below. Signing does not move any funds.
 * Origin: <service origin, e.g. https://swap.example.com>
 * Address: <destination address>
 * Asset: <destination asset symbol, e.g. ZANO>
 * Network: <destination network, e.g. ZANO>
 * User: <partner's user id, the x-service-user header>
 * Nonce: <random nonce, at least 16 characters>
 * Issued At: <ISO-8601 UTC, e.g. 2026-07-01T12:00:00.000Z>
 * Expires At: <ISO-8601 UTC>
 * ```
 *
 * Every value is 1 or more visible ASCII characters (0x21-0x7E): no spaces, no line breaks (which could
 * forge extra lines), nothing a wallet might render ambiguously.
 */

/** The first line of every challenge text. */
export const CHALLENGE_TITLE = 'Partner Swap Service ownership challenge';

/** The second line: what signing means, for the person looking at the wallet's prompt. */
export const CHALLENGE_NOTICE = 'Sign this text to prove you control the address below. Signing does not move any funds.';

/** The fewest characters a challenge nonce may have. */
export const CHALLENGE_NONCE_MIN_CHARS = 16;

/** What a challenge names; the nonce and both times are handed in (domain/ has no clock or randomness). */
export interface ChallengeFields {
  /** The service origin (PUBLIC_ORIGIN), e.g. `https://swap.example.com`. */
  origin: string;
  /** The destination address the route pays to. */
  address: string;
  /** The destination asset symbol, e.g. `ZANO` or `fUSD`. */
  asset: string;
  /** The destination network, e.g. `ZANO`. */
  network: string;
  /** The partner's user id (`x-service-user`). */
  user: string;
  /** A random nonce, at least CHALLENGE_NONCE_MIN_CHARS visible ASCII characters. */
  nonce: string;
  /** When the challenge was issued. */
  issuedAt: Date;
  /** When the challenge stops being accepted; after issuedAt. */
  expiresAt: Date;
}

/** A challenge that cannot be written: the message names the field and the problem. */
export class ChallengeTextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChallengeTextError';
  }
}

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** Builds the challenge text in the layout of the module comment; throws ChallengeTextError for a value it cannot print. */
export function buildChallengeText(fields: ChallengeFields): string {
  const { origin, address, asset, network, user, nonce, issuedAt, expiresAt } = fields;
  const values = { origin, address, asset, network, user, nonce };
  for (const [name, value] of Object.entries(values)) {
    if (typeof value !== 'string' || value.length === 0) throw new ChallengeTextError(`${name} must be a non-empty string`);
    if (!VISIBLE_ASCII.test(value)) {
      throw new ChallengeTextError(
        `${name} must be visible ASCII characters only (no spaces, line breaks or non-ASCII): ${JSON.stringify(value)}`,
      );
    }
  }
  if (nonce.length < CHALLENGE_NONCE_MIN_CHARS) {
    throw new ChallengeTextError(`nonce must have at least ${CHALLENGE_NONCE_MIN_CHARS} characters, not ${nonce.length}`);
  }
  const issued = isoTime('issuedAt', issuedAt);
  const expires = isoTime('expiresAt', expiresAt);
  if (expiresAt.getTime() <= issuedAt.getTime()) throw new ChallengeTextError(`expiresAt (${expires}) must be after issuedAt (${issued})`);

  return [
    CHALLENGE_TITLE,
    CHALLENGE_NOTICE,
    `Origin: ${origin}`,
    `Address: ${address}`,
    `Asset: ${asset}`,
    `Network: ${network}`,
    `User: ${user}`,
    `Nonce: ${nonce}`,
    `Issued At: ${issued}`,
    `Expires At: ${expires}`,
  ].join('\n');
}

function isoTime(name: string, value: Date): string {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new ChallengeTextError(`${name} must be a valid Date`);
  // toISOString is always UTC ("Z"); years outside 0000-9999 would print a sign, which no real challenge has.
  const text = value.toISOString();
  if (!/^\d{4}-/.test(text)) throw new ChallengeTextError(`${name} is outside the years 0000-9999`);
  return text;
}
