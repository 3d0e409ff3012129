/**
 * Body reading. The exact bytes are kept (request signatures hash them) and JSON is parsed from them here,
 * so a malformed or oversize body fails once, with the spec's Error body, before anything else looks at it.
 */
import express, { type RequestHandler } from 'express';
import { AppError } from '../domain/errors.js';

/** Largest request body accepted, in bytes (64 KiB). */
export const MAX_BODY_BYTES = 64 * 1024;

declare module 'express-serve-static-core' {
  interface Request {
    /** The body exactly as received (empty when there was none). */
    rawBody: Buffer;
  }
}

/** Reads the body's exact bytes into req.rawBody (413 over MAX_BODY_BYTES); parses nothing. */
export function readRawBody(): RequestHandler {
  // inflate: false, because signatures cover the bytes as received; a compressed body is refused (415).
  const raw = express.raw({ type: () => true, limit: MAX_BODY_BYTES, inflate: false });
  return (req, res, next) => {
    raw(req, res, (err?: unknown) => {
      if (err) return next(translateBodyError(err));
      req.rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      req.body = undefined;
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
    return new AppError(413, 'payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`, {
      limitBytes: MAX_BODY_BYTES,
    });
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new AppError(415, 'unsupported_media_type', (err as Error).message);
  }
  if (type === 'request.aborted' || type === 'request.size.invalid') {
    return new AppError(400, 'invalid_request', 'The request body was incomplete.');
  }
  return err;
}
