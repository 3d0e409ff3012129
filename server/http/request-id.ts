/** Gives every request an id (the caller's x-request-id when it is sane) and echoes it on the response. */
import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';

const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// Random bytes are drawn in blocks and handed out 26 at a time: one system call per 157 ids, not per id.
const ID_BYTES = 26;
const POOL_IDS = 157;
let pool = Buffer.alloc(0);
let offset = 0;

/** A fresh request id such as req_01HZX3V8K2M4N6P8Q0R2S4T6V8 (26 Crockford base32 characters). */
export function newRequestId(): string {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(ID_BYTES * POOL_IDS);
    offset = 0;
  }
  let id = 'req_';
  for (let i = offset; i < offset + ID_BYTES; i++) id += CROCKFORD[pool[i] % 32];
  offset += ID_BYTES;
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
