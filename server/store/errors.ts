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
