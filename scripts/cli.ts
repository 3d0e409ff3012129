/**
 * What the command-line tools (partners, ops) share: the usage error, and how a run ends. A usage mistake
 * prints the message and the usage (exit 2); a refusal of the service (AppError) and a configuration error
 * print their message alone; anything else prints its stack (exit 1).
 */
import os from 'node:os';
import { ConfigError } from '../server/config.js';
import { AppError } from '../server/domain/errors.js';

/** Exit code of a usage mistake (unknown command, missing or malformed option). */
export const EXIT_USAGE = 2;

/** A mistake in how the tool was called; answered with the usage text. */
export class UsageError extends Error {}

/**
 * Who is acting, for the operator action trail: `--actor NAME` when given, else the OS user this process
 * runs as (os.userInfo(), which an environment variable cannot change), else $USER where the OS has no name
 * for the user (a container's bare uid). The operator's identity is not service configuration, so it is read
 * here rather than in loadConfig.
 */
export function actorOf(given: string | undefined): string {
  if (given !== undefined) return given;
  try {
    return os.userInfo().username;
  } catch {
    const fromEnv = process.env.USER?.trim();
    if (fromEnv) return fromEnv;
    throw new UsageError('cannot tell who you are (this user has no name on this machine and $USER is unset); give --actor NAME');
  }
}

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
