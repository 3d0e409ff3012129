/**
 * The one place failures become responses: every error, whatever raised it, leaves as the spec's Error
 * body with the request id, and nothing internal (stack, SQL, driver text) reaches the client.
 */
import type { ErrorRequestHandler, Request } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';

/** The spec's Error body. */
export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown>; requestId?: string };
}

interface ValidatorError {
  status: number;
  message: string;
  errors?: Array<{ path?: string; message?: string; errorCode?: string }>;
}

/** Converts any thrown value into an AppError a client may see. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isValidatorError(err)) {
    const errors = (err.errors ?? []).map((e) => ({ path: e.path ?? '', message: e.message ?? '' }));
    switch (err.status) {
      case 400:
        if (errors.length > 0 && errors.every((e) => e.path.toLowerCase() === '/headers/idempotency-key')) {
          return new AppError(
            400,
            'invalid_idempotency_key',
            'The Idempotency-Key header is required: 1 to 255 visible ASCII characters, for example a UUID you store before calling.',
            { errors },
          );
        }
        return new AppError(400, 'invalid_request', `The request does not match the API contract: ${describe(errors)}`, { errors });
      case 415:
        return new AppError(415, 'unsupported_media_type', 'Send the body as application/json.', { errors });
      case 413:
        return new AppError(413, 'payload_too_large', err.message);
      default:
        if (err.status >= 400 && err.status < 500) return new AppError(err.status, 'invalid_request', err.message, { errors });
    }
  }
  if ((err as { name?: string }).name === 'KnexTimeoutError') {
    // Every database connection stayed busy past the acquire timeout: overload, worth a retry.
    return new AppError(503, 'service_unavailable', 'The service is busy; retry shortly.', undefined, {
      cause: err,
      headers: { 'Retry-After': '1' },
    });
  }
  return new AppError(
    500,
    'internal_error',
    'An unexpected error occurred. It has been logged; quote the requestId when contacting support.',
  );
}

/** Builds the Error body for an AppError. */
export function errorBody(error: AppError, requestId?: string): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      ...(requestId ? { requestId } : {}),
    },
  };
}

/** The express error middleware: logs server-side faults in full, answers with the Error body. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    const appError = toAppError(err);
    const requestId = (req as Request & { id?: string }).id;
    if (appError.status >= 500) {
      const responseMismatch = isValidatorError(err) && err.status === 500;
      logger.error({ err, requestId, responseMismatch }, responseMismatch ? 'response does not match the spec' : 'request failed');
    }
    for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
    res.status(appError.status).json(errorBody(appError, requestId));
  };
}

function isValidatorError(err: unknown): err is ValidatorError {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as ValidatorError).status === 'number' &&
    Array.isArray((err as ValidatorError).errors)
  );
}

function describe(errors: Array<{ path: string; message: string }>): string {
  if (errors.length === 0) return 'see details';
  const first = `${errors[0].path} ${errors[0].message}`.trim();
  return errors.length > 1 ? `${first} (and ${errors.length - 1} more)` : first;
}
