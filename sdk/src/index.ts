/**
 * Partner Swap Service SDK: a typed client that signs every request (PSS1-HMAC-SHA256), retries what is safe
 * to retry, and returns `{ data, error, response }` results with a typed PartnerApiError.
 */
export { createPartnerClient, newIdempotencyKey, type ApiResult, type PartnerClient, type PartnerClientOptions } from './client.js';
export { PartnerApiError } from './errors.js';
export { DEFAULT_RETRY, isRetryable, retryDelayMs, type Attempt, type RetryOptions } from './retry.js';
export { canonicalText, newNonce, SIGNING_SCHEME, signatureHeader, signedHeaders, type SigningInput } from './signing.js';
export { SDK_VERSION } from './version.js';
export { API_VERSION } from './generated/version.js';
export type { components, operations, paths } from './generated/api.js';
