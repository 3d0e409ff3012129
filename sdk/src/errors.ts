/**
 * The SDK's error values: PartnerApiError for a non-2xx answer of the API, with everything needed to act on it,
 * and WaitTimeoutError for a wait helper that gave up. Both are returned as `error`, never thrown.
 */

/** An error response of the API (`{"error":{"code","message",...}}`), as a value. */
export class PartnerApiError extends Error {
  /** HTTP status. */
  readonly status: number;
  /** The stable error code, e.g. `rate_limited`, `invalid_signature` (see the API's Error schema). */
  readonly code: string;
  /** Structured details when the API gave them. */
  readonly details?: Record<string, unknown>;
  /** The request id (x-request-id): quote it to support. */
  readonly requestId?: string;
  /** Seconds the API asked to wait (Retry-After), when it did. */
  readonly retryAfter?: number;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    details?: Record<string, unknown>;
    requestId?: string;
    retryAfter?: number;
  }) {
    super(init.message);
    this.name = 'PartnerApiError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }

  /** Builds the error from a response and its parsed body (any shape: a proxy may answer in HTML). */
  static from(response: Response, body: unknown): PartnerApiError {
    const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown; requestId?: unknown } } | undefined)?.error;
    const retryAfter = response.headers.get('retry-after');
    return new PartnerApiError({
      status: response.status,
      code: typeof error?.code === 'string' ? error.code : `http_${response.status}`,
      message: typeof error?.message === 'string' ? error.message : `HTTP ${response.status} ${response.statusText}`.trim(),
      details: error?.details && typeof error.details === 'object' ? (error.details as Record<string, unknown>) : undefined,
      requestId: (typeof error?.requestId === 'string' ? error.requestId : undefined) ?? response.headers.get('x-request-id') ?? undefined,
      retryAfter: retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined,
    });
  }
}

/** The details of a `403 address_denied`: which request field address screening refused, in which role. */
export interface AddressDeniedDetails {
  /** The request field: `destinationAddress` or `refundAddress`. */
  field: 'destinationAddress' | 'refundAddress';
  /** The role it was screened in. */
  role: 'destination' | 'refund';
  /** The network of the address. */
  network: string;
}

/** A PartnerApiError for an address screening refused (`403 address_denied`): ask the customer for another address. */
export type AddressDeniedError = PartnerApiError & { status: 403; code: 'address_denied'; details: AddressDeniedDetails };

/**
 * Whether `error` is `403 address_denied` (POST /quotes, /swaps, /permanent-routes): the deployment's address
 * screening does not allow `details.field`. The same address is refused again; ask for another.
 */
export function isAddressDenied(error: unknown): error is AddressDeniedError {
  return (
    error instanceof PartnerApiError &&
    error.status === 403 &&
    error.code === 'address_denied' &&
    typeof error.details?.field === 'string' &&
    typeof error.details?.role === 'string'
  );
}

/** A wait helper (e.g. swaps.waitForDepositAddress) gave up: what it waited for did not happen within timeoutMs. */
export class WaitTimeoutError extends Error {
  /** Always `wait_timeout`, so `error.code` reads the same on every error value. */
  readonly code = 'wait_timeout';
  /** The timeout that elapsed, in milliseconds. */
  readonly timeoutMs: number;

  constructor(message: string, timeoutMs: number) {
    super(message);
    this.name = 'WaitTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}
