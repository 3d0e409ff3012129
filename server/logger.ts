/**
 * The process logger: JSON lines via pino, with credentials and secrets redacted wherever they appear. Besides
 * the paths below, every URL in a logged value, message or error (viem's errors carry the request URL, whose
 * path may hold an RPC provider's API key) is shown as adapters/boundary.ts redactUrl shows it: no credentials,
 * no path secrets, no query.
 */
import { pino, stdSerializers, type Logger } from 'pino';
import { redactUrls } from './adapters/boundary.js';

/** Paths pino blanks out before a line is written. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-service-signature"]',
  'req.headers.cookie',
  '*.secret',
  '*.secretsKey',
  '*.accessToken',
  '*.password',
];

/** How deep redactValue looks into a logged object (an error's causes, a few levels of fields). */
const MAX_REDACT_DEPTH = 6;

/** `value` with every URL in its strings redacted; objects and arrays are copied, the rest returned as is. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactUrls(value);
  if (depth >= MAX_REDACT_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  // Plain records only: anything else (a Date, a Buffer, an Error, a request) is left to its serialiser.
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item, depth + 1)]));
}

/** Creates the logger at `level`. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: 'partner-swap' },
    // pino's serialised error has a prototype of its own: its fields are copied into a record first.
    serializers: { err: (err: Error) => redactValue({ ...stdSerializers.err(err) }) },
    formatters: { log: (object) => redactValue(object) as Record<string, unknown> },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((arg) => (typeof arg === 'string' ? redactUrls(arg) : arg)) as Parameters<typeof method>);
      },
    },
  });
}
