/**
 * The API reference page at GET /docs: Scalar's standalone renderer (@scalar/api-reference), served from
 * node_modules, drawing the served OpenAPI document. Every script, style and font comes from this service:
 * partners read the page behind firewalls, so nothing may load from a CDN.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Express, type RequestHandler } from 'express';

/** Where the page is served (outside the versioned API). */
export const DOCS_PATH = '/docs';

const RENDERER_FILE = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');
const RENDERER_VERSION = (
  JSON.parse(readFileSync(path.join(path.dirname(RENDERER_FILE), '../../package.json'), 'utf8')) as { version: string }
).version;
const IMMUTABLE_MAX_AGE_MS = 365 * 24 * 60 * 60 * 1000;

// 'unsafe-inline' styles: the renderer injects its CSS as <style> elements at run time. 'unsafe-eval': its
// bundled schema library (zod) probes `new Function('')` once; blocked, the probe is reported as a console
// error (the page works either way). data: images: the favicon link below, so the browser asks for none.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join('; ');

/** Options for mountDocs. */
export interface DocsOptions {
  /** The URL the page fetches the OpenAPI document from (same origin). */
  documentUrl: string;
}

/**
 * Serves the page and its assets on `app` under DOCS_PATH. The router is mounted there, not at '/', so the
 * API's own requests never walk its routes.
 */
export function mountDocs(app: Express, { documentUrl }: DocsOptions): void {
  // Off: Scalar's own fonts (fonts.scalar.com), its AI agent (api.scalar.com) and the developer toolbar,
  // which reach outside; the system fonts stand in. All tags open: every operation is on the page, not
  // behind a "Show more".
  const configuration = {
    url: documentUrl,
    withDefaultFonts: false,
    agent: { disabled: true },
    showDeveloperTools: 'never',
    defaultOpenAllTags: true,
  };
  // Not '#api-reference': the standalone script mounts itself, with default settings, on an element of that id.
  const startScript = `Scalar.createApiReference('#reference', ${JSON.stringify(configuration)});\n`;
  // The assets' paths under DOCS_PATH, where the router below is mounted.
  const startPath = `/assets/start-${createHash('sha256').update(startScript).digest('hex').slice(0, 12)}.js`;
  const rendererPath = `/assets/api-reference-${RENDERER_VERSION}.js`;
  const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Partner Swap Service API reference</title>
    <link rel="icon" href="data:,">
  </head>
  <body>
    <div id="reference"></div>
    <script src="${DOCS_PATH}${rendererPath}"></script>
    <script src="${DOCS_PATH}${startPath}"></script>
  </body>
</html>
`;

  const router = express.Router();
  router.use(securityHeaders());
  router.get('/', (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(page);
  });
  // Both asset URLs change with their content, so browsers may keep them for good.
  router.get(rendererPath, (_req, res, next) => {
    // After the headers (a client that went away mid-file), there is nothing left to answer.
    res.sendFile(RENDERER_FILE, { maxAge: IMMUTABLE_MAX_AGE_MS, immutable: true }, (err) => err && !res.headersSent && next(err));
  });
  router.get(startPath, (_req, res) => {
    res.setHeader('Cache-Control', `public, max-age=${IMMUTABLE_MAX_AGE_MS / 1000}, immutable`);
    res.type('js').send(startScript);
  });
  app.use(DOCS_PATH, router);
}

function securityHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  };
}
