/** The process logger: JSON lines via pino, with credentials and secrets redacted wherever they appear. */
import { pino, type Logger } from 'pino';

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

/** Creates the logger at `level`. */
export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'partner-swap' } });
}
