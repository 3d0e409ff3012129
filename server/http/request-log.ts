/**
 * Per-request logging, lighter than pino-http (which built a child logger and serialised the request for
 * every request, logged or not; it was a few percent of the CPU of a request). `req.log` is a child logger
 * bound to the request id, created only when something logs through it. One line per finished request:
 * `error` for 5xx, `info` for 4xx, `debug` for the rest, written only when that level is enabled.
 */
import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';

declare module 'express-serve-static-core' {
  interface Request {
    /** A logger bound to this request's id (created on first use). */
    log: Logger;
  }
}

/** The request-logging middleware; runs after requestId(). */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const id = (req as Request & { id: string }).id;
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', {
      configurable: true,
      enumerable: false,
      get: () => (child ??= logger.child({ reqId: id })),
    });
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
      if (!logger.isLevelEnabled(level)) return;
      const responseTime = Number(process.hrtime.bigint() - started) / 1e6;
      logger[level](
        { reqId: id, req: { method: req.method, url: req.originalUrl }, res: { statusCode: status }, responseTime },
        'request completed',
      );
    });
    next();
  };
}
