/** Gives every request an id (the caller's x-request-id when it is sane) and echoes it on the response. */
import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';

const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A fresh request id such as req_01HZX3V8K2M4N6P8Q0R2S4T6V8 (26 Crockford base32 characters). */
export function newRequestId(): string {
  const bytes = randomBytes(26);
  let id = 'req_';
  for (const byte of bytes) id += CROCKFORD[byte % 32];
  return id;
}

/** Sets req.id and the x-request-id response header before anything else runs. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const id = incoming && ACCEPTED_REQUEST_ID.test(incoming) ? incoming : newRequestId();
    (req as { id?: string }).id = id;
    res.setHeader('x-request-id', id);
    next();
  };
}
