/**
 * Where `make demo` and `make demo-route` find the server: as the server itself reads its address, `PORT`
 * (8080) and `PUBLIC_ORIGIN` (the origin signatures name, `http://localhost:<PORT>` by default), or
 * `PSS_BASE_URL` and `PSS_AUDIENCE` for a server elsewhere. A server that does not answer at all ends the demo
 * with what to set, not with a stack trace.
 */

/** The API base URL and the audience (the server's PUBLIC_ORIGIN) a demo signs for. */
export function demoTarget(env: NodeJS.ProcessEnv = process.env): { baseUrl: string; audience: string } {
  const port = env.PORT || '8080';
  return {
    baseUrl: env.PSS_BASE_URL || `http://127.0.0.1:${port}/api/v1`,
    audience: env.PSS_AUDIENCE || env.PUBLIC_ORIGIN || `http://localhost:${port}`,
  };
}

/** The system error code behind a failed fetch (undici puts it on `cause`). */
function causeCode(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/**
 * Ends the process (exit 1) with what to set when `demo` cannot reach the server at `baseUrl`: nothing listens
 * there (ECONNREFUSED), or the name does not resolve. Any other uncaught error is printed with its stack (exit 1).
 */
export function explainUnreachable(demo: string, baseUrl: string): void {
  const explain = (err: unknown) => {
    const code = causeCode(err);
    if (code !== 'ECONNREFUSED' && code !== 'ENOTFOUND' && code !== 'EAI_AGAIN') {
      console.error(err);
      process.exit(1);
    }
    process.stderr.write(
      `${demo} failed: nothing answers at ${baseUrl} (${code}). Start the server (make run), or point the demo at it: ` +
        `PORT=<the server's PORT> make ${demo}, or PSS_BASE_URL=<its base URL, …/api/v1> PSS_AUDIENCE=<its PUBLIC_ORIGIN> make ${demo}\n`,
    );
    process.exit(1);
  };
  process.on('uncaughtException', explain);
  process.on('unhandledRejection', explain);
}
