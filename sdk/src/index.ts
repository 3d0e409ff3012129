/**
 * Partner Swap Service SDK: a typed client that signs every request (PSS1-HMAC-SHA256), retries what is safe
 * to retry, and returns `{ data, error, response }` results with a typed PartnerApiError.
 */
export { createPartnerClient, type PartnerClient, type QuotesApi } from './client.js';
export type { PartnerClientOptions } from './options.js';
export {
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_WAIT_TIMEOUT_MS,
  newIdempotencyKey,
  type CreateSwapOptions,
  type CreateSwapResult,
  type ListSwapsQuery,
  type ReadSwapOptions,
  type SwapsApi,
  type WaitOptions,
} from './swaps.js';
export { DEFAULT_STREAM_MAX_RECONNECTS, StreamDisconnectedError, type StreamOptions, type SwapStreamEvent } from './stream.js';
export type { SandboxApi } from './sandbox.js';
export type {
  CreateVerifiedInput,
  ListRouteDepositsQuery,
  ListRoutesQuery,
  PermanentAccumulation,
  PermanentChallenge,
  PermanentDeposit,
  PermanentDepositExpectation,
  PermanentDepositList,
  PermanentRoute,
  PermanentRouteList,
  PermanentRouteRequest,
  PermanentRouteTarget,
  RoutesApi,
  SignChallenge,
  WalletSignature,
} from './routes.js';
export type { Earning, EarningsApi, EarningsPage, EarningTotal, ListEarningsQuery } from './earnings.js';
export type {
  ListWebhookDeliveriesQuery,
  PartnerWebhook,
  PartnerWebhookRequest,
  PartnerWebhookUpdate,
  WebhookConfigApi,
  WebhookDelivery,
  WebhookDeliveryList,
} from './webhook-config.js';
export type { ApiResult, WaitResult } from './result.js';
export type {
  Quote,
  QuoteRequest,
  QuoteResponse,
  SandboxDeadline,
  SandboxDeposit,
  SandboxDepositRequest,
  SandboxFailureStage,
  SandboxReorganization,
  SandboxReviewDecision,
  Swap,
  SwapCreated,
  SwapDeposit,
  SwapDetail,
  SwapEvent,
  SwapList,
  SwapOrder,
  SwapRequest,
  SwapStatus,
} from './schemas.js';
export { isAddressDenied, PartnerApiError, WaitTimeoutError, type AddressDeniedDetails, type AddressDeniedError } from './errors.js';
export {
  signTestWebhook,
  verifyWebhook,
  WEBHOOK_SECRET_PREFIX,
  WEBHOOK_TOLERANCE_IN_SECONDS,
  WebhookVerificationError,
  type PermanentDepositUpdatedEvent,
  type SignTestWebhookInput,
  type SwapUpdatedEvent,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookRequestHeaders,
  type WebhookTestEvent,
  type WebhookVerificationReason,
} from './webhooks.js';
export {
  DEPOSIT_INSTRUCTIONS_TYPE,
  DepositInstructionsError,
  ROUTE_ADDRESSES_TYPE,
  verifyDepositInstructions,
  verifyRouteAddresses,
  type DepositInstructions,
  type DepositInstructionsReason,
  type RouteAddresses,
  type SigningKey,
  type SigningKeySet,
  type SigningKeysSource,
  type SwapToCompare,
  type VerifyDepositInstructionsOptions,
  type VerifyRouteAddressesOptions,
} from './deposit-instructions.js';
export { DEFAULT_RETRY, isRetryable, retryDelayMs, type Attempt, type RetryOptions } from './retry.js';
export { canonicalText, newNonce, SIGNING_SCHEME, signatureHeader, signedHeaders, type SigningInput } from './signing.js';
export { SDK_VERSION } from './version.js';
export { API_VERSION } from './generated/version.js';
export type { components, operations, paths } from './generated/api.js';
