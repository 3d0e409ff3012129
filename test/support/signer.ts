/**
 * An independent signer written from the description of the protocol in docs/signing.md alone (it imports nothing
 * from server/ or sdk/), so tests prove that a partner following the docs is accepted.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';

/** Credentials and audience of one partner. */
export interface SignerOptions {
  keyId: string;
  secret: string;
  audience: string;
  user?: string;
}

/** Fields that tests may override to tamper with a request. */
export interface SignOverrides {
  timestamp?: string;
  nonce?: string;
  user?: string;
  /** Sign as if the request were this method/path/body/audience (then send something else). */
  signedMethod?: string;
  signedPathAndQuery?: string;
  signedBody?: string;
  signedAudience?: string;
  signedUser?: string;
  secret?: string;
}

/** Builds the five headers for `method` + `pathAndQuery` (e.g. /api/v1/partner/markup) with `body`. */
export function signHeaders(
  options: SignerOptions,
  method: string,
  pathAndQuery: string,
  body = '',
  overrides: SignOverrides = {},
): Record<string, string> {
  const timestamp = overrides.timestamp ?? String(Math.floor(Date.now() / 1000));
  const nonce = overrides.nonce ?? randomBytes(16).toString('hex');
  const user = overrides.user ?? options.user ?? 'customer-1';
  const lines = [
    'PSS1-HMAC-SHA256',
    overrides.signedAudience ?? options.audience,
    (overrides.signedMethod ?? method).toUpperCase(),
    overrides.signedPathAndQuery ?? pathAndQuery,
    timestamp,
    nonce,
    options.keyId,
    overrides.signedUser ?? user,
    createHash('sha256')
      .update(overrides.signedBody ?? body, 'utf8')
      .digest('hex'),
  ];
  const signature = createHmac('sha256', overrides.secret ?? options.secret)
    .update(lines.join('\n'))
    .digest('hex');
  return {
    'x-service-key-id': options.keyId,
    'x-service-user': user,
    'x-service-timestamp': timestamp,
    'x-service-nonce': nonce,
    'x-service-signature': `v1=${signature}`,
  };
}

/** Sends a signed request to `origin` + `pathAndQuery`. */
export async function signedFetch(
  origin: string,
  options: SignerOptions,
  method: string,
  pathAndQuery: string,
  body?: unknown,
  overrides: SignOverrides = {},
): Promise<Response> {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string> = signHeaders(options, method, pathAndQuery, text, overrides);
  if (text) headers['content-type'] = 'application/json';
  return fetch(`${origin}${pathAndQuery}`, { method, headers, body: text || undefined });
}
