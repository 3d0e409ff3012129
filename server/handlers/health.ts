/** Health and Meta operations: liveness with dependency checks, the served spec, and the keys that sign deposit instructions. */
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { AppError } from '../domain/errors.js';
import { pingDatabase } from '../store/database.js';
import { fixedBody, type Handlers } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

/**
 * How long a client may cache GET /signing-keys. Short, so a verifier meeting a new `kid` after a rotation
 * (the SDK fetches the set again for an unknown `kid`) sees it soon; a previous key stays in the set for as
 * long as the operator lists it, so a cached set never loses a key it still needs.
 */
export const SIGNING_KEYS_MAX_AGE_SECONDS = 300;

/** Handlers for getHealth, getOpenApiDocument and getSigningKeys. */
export function createHealthHandlers(deps: HandlerDeps): Pick<Handlers, 'getHealth' | 'getOpenApiDocument' | 'getSigningKeys'> {
  const document = compressedDocument(JSON.stringify(deps.apiDocument));
  const signingKeys = fixedBody(structuredClone(deps.signingKeySet));
  return {
    async getSigningKeys() {
      return { status: 200, body: signingKeys, headers: { 'Cache-Control': `public, max-age=${SIGNING_KEYS_MAX_AGE_SECONDS}` } };
    },

    async getHealth() {
      const database = await pingDatabase(deps.knex);
      const checks = { database: { status: database.ok ? ('ok' as const) : ('fail' as const), latencyMs: database.latencyMs } };
      if (!database.ok) {
        throw new AppError(503, 'service_unavailable', 'The database is unreachable; the service cannot take requests.', { checks });
      }
      const networks = deps.networkStatus?.states().map((state) => ({
        network: state.network,
        status: state.status,
        ...(state.height === undefined ? {} : { height: state.height }),
        ...(state.tipAgeSeconds === undefined ? {} : { tipAgeSeconds: state.tipAgeSeconds }),
        balance: state.balance,
        ...(state.reason === undefined ? {} : { reason: state.reason }),
        checkedAt: state.checkedAt.toISOString(),
      }));
      return {
        status: 200,
        body: {
          status: 'ok',
          version: deps.apiVersion,
          time: deps.now().toISOString(),
          checks: networks ? { ...checks, networks } : checks,
        },
      };
    },

    async getOpenApiDocument({ req, res }) {
      res.status(200).type('application/json').vary('Accept-Encoding');
      if (req.acceptsEncodings('br') === 'br') res.set('Content-Encoding', 'br').send(document.brotli);
      else if (req.acceptsEncodings('gzip', 'identity') === 'gzip') res.set('Content-Encoding', 'gzip').send(document.gzip);
      else res.send(document.json);
      return { handled: true };
    },
  };
}

/**
 * The served document (about 160 kB of JSON), plain and compressed. It never changes while the process runs,
 * so it is compressed once per process, not per request or per app (brotli at its best quality takes about a
 * tenth of a second). A client that accepts brotli (browsers, fetch) gets about a sixth of the bytes; one that
 * accepts only gzip (curl --compressed) about a fifth.
 */
let compressed: { text: string; json: Buffer; gzip: Buffer; brotli: Buffer } | undefined;
function compressedDocument(text: string): { json: Buffer; gzip: Buffer; brotli: Buffer } {
  if (compressed?.text !== text) {
    const json = Buffer.from(text);
    compressed = {
      text,
      json,
      gzip: gzipSync(json, { level: 9 }),
      brotli: brotliCompressSync(json, {
        params: {
          [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
          [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
          [zlib.BROTLI_PARAM_SIZE_HINT]: json.length,
        },
      }),
    };
  }
  return compressed;
}
