/**
 * Body reading. The exact bytes are kept (request signatures hash them) and JSON is parsed from them here,
 * so a malformed or oversize body fails once, with the spec's Error body, before anything else looks at it.
 */
import type { RequestHandler } from 'express';
import getRawBody from 'raw-body';
import { AppError } from '../domain/errors.js';

/** Largest request body accepted, in bytes (64 KiB). */
export const MAX_BODY_BYTES = 64 * 1024;

const EMPTY = Buffer.alloc(0);

declare module 'express-serve-static-core' {
  interface Request {
    /** The body exactly as received (empty when there was none). */
    rawBody: Buffer;
  }
}

/**
 * Reads the body's exact bytes into req.rawBody; parses nothing. Runs after routing, so a request for an
 * unknown path is answered before any of its body is read. Past MAX_BODY_BYTES it stops reading at once and
 * answers 413 with `Connection: close`, so an oversize upload is cut off instead of drained to its end.
 */
export function readRawBody(): RequestHandler {
  return (req, _res, next) => {
    req.rawBody = EMPTY;
    // Signatures cover the bytes as received, so a compressed body is refused rather than inflated.
    const encoding = (req.get('content-encoding') ?? 'identity').toLowerCase();
    if (encoding !== 'identity') {
      return next(new AppError(415, 'unsupported_media_type', `Content-Encoding ${encoding} is not accepted; send the body uncompressed.`));
    }
    const declared = req.get('content-length');
    // HTTP/1.1: a request has a body only when it says so with Transfer-Encoding or Content-Length.
    if (req.get('transfer-encoding') === undefined && declared === undefined) return next();
    getRawBody(req, { length: declared === undefined ? undefined : Number(declared), limit: MAX_BODY_BYTES }, (err, body) => {
      if (err) return next(translateBodyError(err));
      req.rawBody = body;
      next();
    });
  };
}

/** Parses a JSON req.rawBody into req.body; runs after authentication so unsigned requests learn nothing. */
export function parseJsonBody(): RequestHandler {
  return (req, _res, next) => {
    const bytes = req.rawBody;
    if (!bytes || bytes.length === 0) return next();
    if (req.is(['application/json', 'application/*+json'])) {
      try {
        req.body = JSON.parse(bytes.toString('utf8'));
      } catch (err) {
        return next(
          new AppError(400, 'malformed_json', `The request body is not valid JSON: ${(err as Error).message}`, undefined, { cause: err }),
        );
      }
    }
    next();
  };
}

function translateBodyError(err: unknown): unknown {
  const type = (err as { type?: string }).type;
  if (type === 'entity.too.large') {
    // The rest of the upload is not read: the connection closes once this answer is sent.
    return new AppError(
      413,
      'payload_too_large',
      `The request body is larger than ${MAX_BODY_BYTES} bytes.`,
      { limitBytes: MAX_BODY_BYTES },
      { headers: { Connection: 'close' } },
    );
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new AppError(415, 'unsupported_media_type', (err as Error).message);
  }
  if (type === 'request.aborted' || type === 'request.size.invalid') {
    return new AppError(400, 'invalid_request', 'The request body was incomplete.');
  }
  return err;
}
