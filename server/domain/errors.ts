/**
 * The one error family of the service. Every failure a client can see is an AppError carrying the HTTP
 * status, a stable machine-readable code (enumerated in the spec's Error description) and a message that
 * says what to do about it.
 */

/** A failure with a status, a stable code and optional structured details for the client. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown; headers?: Record<string, string> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.headers = options?.headers ?? {};
  }

  /** Extra response headers that belong to this error (e.g. Retry-After, Allow). */
  readonly headers: Record<string, string>;
}

/** 400 for input the schema cannot express (cross-field rules, decimal precision). */
export function invalidRequest(message: string, details?: Record<string, unknown>): AppError {
  return new AppError(400, 'invalid_request', message, details);
}

/** 404 for a resource that does not exist or belongs to someone else (never 403: existence is not revealed). */
export function notFound(message = 'Not found.'): AppError {
  return new AppError(404, 'not_found', message);
}
