/** Translates driver errors into AppErrors once, at the store boundary, keeping the original as `cause`. */
import { AppError } from '../domain/errors.js';

const UNIQUE_VIOLATION = '23505';
const CHECK_VIOLATION = '23514';

/** Runs `operation`; a unique violation becomes 409 `conflict`, a check violation 400, anything else rethrows. */
export async function translateDbErrors<T>(operation: () => Promise<T>, what: string): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    const code = (err as { code?: string }).code;
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
