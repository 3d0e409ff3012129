/** Translates driver errors into AppErrors once, at the store boundary, keeping the original as `cause`. */
import { AppError } from '../domain/errors.js';

/** SQLSTATE of a unique or primary-key violation. */
export const UNIQUE_VIOLATION = '23505';
/** SQLSTATE of a foreign-key violation. */
export const FOREIGN_KEY_VIOLATION = '23503';
const CHECK_VIOLATION = '23514';

/** The SQLSTATE of a driver error, or undefined for anything else. */
export function sqlState(err: unknown): string | undefined {
  return (err as { code?: string } | undefined)?.code;
}

/** Runs `operation`; a unique violation becomes 409 `conflict`, a check violation 400, anything else rethrows. */
export async function translateDbErrors<T>(operation: () => Promise<T>, what: string): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    const code = sqlState(err);
    if (code === UNIQUE_VIOLATION) throw new AppError(409, 'conflict', `${what} already exists.`, undefined, { cause: err });
    if (code === CHECK_VIOLATION)
      throw new AppError(400, 'invalid_request', `${what} breaks a rule of the data model.`, undefined, { cause: err });
    throw err;
  }
}

/**
 * The reason a guarded statement refused itself (a plpgsql guard raising SQLSTATE `code` with the reason as
 * its message, migrations 0008 and 0009): one of `reasons`, or undefined for any other error. knex puts the
 * statement's text before the database's message, so the reason is read from the end.
 */
export function guardRefusal<R extends string>(err: unknown, code: string, reasons: readonly R[]): R | undefined {
  const { code: actual, message } = (err ?? {}) as { code?: string; message?: string };
  if (actual !== code || typeof message !== 'string') return undefined;
  return reasons.find((reason) => message.endsWith(reason));
}
