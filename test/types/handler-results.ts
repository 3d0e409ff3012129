// Compile-time checks, run by `tsc` in `make lint`: a handler can only answer with a status and body that
// the spec documents for its operation. Each @ts-expect-error line must stay an error, or tsc fails.
import type { Handler } from '../../server/http/handler-types.js';
import { API_VERSION } from '../../sdk/src/generated/version.js';

export const documented: Handler<'getHealth'> = async () => ({
  status: 200,
  body: { status: 'ok', version: API_VERSION, time: '2026-11-22T10:00:00.000Z', checks: { database: { status: 'ok', latencyMs: 1 } } },
});

// @ts-expect-error 201 is not a documented status of getHealth
export const undocumentedStatus: Handler<'getHealth'> = async () => ({ status: 201, body: {} });

// @ts-expect-error version must be a string
export const wrongBody: Handler<'getHealth'> = async () => ({
  status: 200,
  body: { status: 'ok', version: 12, time: '2026-11-22T10:00:00.000Z', checks: { database: { status: 'ok', latencyMs: 1 } } },
});

// @ts-expect-error assets is required
export const missingField: Handler<'listAssets'> = async () => ({ status: 200, body: { currencyCount: 1, assetNetworkCount: 1 } });
