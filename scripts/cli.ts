/**
 * What the command-line tools (partners, ops) share: the usage error, and how a run ends. A usage mistake
 * prints the message and the usage (exit 2); a refusal of the service (AppError) and a configuration error
 * print their message alone; anything else prints its stack (exit 1).
 */
import { ConfigError } from '../server/config.js';
import { AppError } from '../server/domain/errors.js';

/** Exit code of a usage mistake (unknown command, missing or malformed option). */
export const EXIT_USAGE = 2;

/** A mistake in how the tool was called; answered with the usage text. */
export class UsageError extends Error {}

/**
 * Runs `main` with the process's arguments and exits: 0 when it resolves, else as described above.
 * `exitCodeOf` chooses the code of an AppError (default 1).
 */
export function runCli(main: (argv: string[]) => Promise<void>, usage: string, exitCodeOf: (err: AppError) => number = () => 1): void {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (err: unknown) => {
      if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
        process.stderr.write(`${(err as Error).message}\n${usage}\n`);
        process.exit(EXIT_USAGE);
      }
      if (err instanceof AppError) {
        process.stderr.write(`${err.message}\n`);
        process.exit(exitCodeOf(err));
      }
      if (err instanceof ConfigError) {
        process.stderr.write(`${err.message}\n`);
        process.exit(1);
      }
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
