/**
 * Configuration: every environment variable the service reads is read here, once, and validated.
 * A bad value stops the process with a message naming the variable and what was expected.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { readProductionConfig, type ProductionConfig } from './production-config.js';
import { spreadFeeProblems } from './adapters/market/config.js';
import { loadSandboxCatalog } from './adapters/sandbox/catalog.js';
import { Money } from './domain/money.js';
import { DenylistError, parseDenylist, type Denylist } from './domain/screening.js';
import { readPreviousSigningKeys, readSigningKey } from './signing-keys.js';

/** How the service talks to the outside world: simulated (sandbox) or real adapters (production). */
export type ServiceMode = 'sandbox' | 'production';

/** The validated, frozen configuration of one process. */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** Real PostgreSQL when set; embedded PGlite in `dataDir` otherwise. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /**
   * The signing audience: scheme, host and port, no trailing slash. Defaults to the address the server listens
   * on (http://localhost:PORT for a loopback or wildcard HOST), so a server on another port signs for that port.
   */
  readonly publicOrigin: string;
  /**
   * Express's `trust proxy`: false (X-Forwarded-For ignored), a hop count, or the proxies' addresses and CIDR
   * ranges. Decides the client IP of public rate limits.
   */
  readonly trustProxy: TrustProxy;
  /**
   * The origins whose pages may call the operations a browser belongs on (public ones and the access-token
   * reads, server/http/cors.ts); `*` for any (sandbox only); empty: no CORS at all.
   */
  readonly corsOrigins: CorsOrigins;
  /** Read by the entry points (server/main.ts, scripts/) to choose what to build; the rest reads ModeCapabilities. */
  readonly serviceMode: ServiceMode;
  /** Key that encrypts partner and webhook secrets at rest (32 bytes); when unset, see secretsKeyFallback. */
  readonly secretsKey: string | undefined;
  /**
   * Without SECRETS_KEY, use a key generated once into dataDir/secrets.key and reused on every start, so a
   * sandbox starts with no set-up; false (production): SECRETS_KEY is required.
   */
  readonly secretsKeyFallback: boolean;
  /** The PKCS#8 PEM private key that signs deposit instructions (Ed25519 or P-256); required in production. */
  readonly signingKeyFile: string | undefined;
  /** PEM public keys of earlier signing keys, still served by GET /signing-keys so their signatures verify. */
  readonly signingPreviousKeysFile: string | undefined;
  /**
   * Without SIGNING_KEY_FILE, sign with a key generated once into dataDir/signing-key.pem and reused on every
   * start (sandbox); false (production): SIGNING_KEY_FILE is required.
   */
  readonly signingKeyFallback: boolean;
  readonly logLevel: string;
  /** Print the URL and the sandbox demo credentials to stdout at start. */
  readonly printBanner: boolean;
  /** Validate responses against the spec too (development and tests). */
  readonly validateResponses: boolean;
  readonly quoteTtlSeconds: number;
  readonly depositWindowSeconds: number;
  readonly overdueGraceSeconds: number;
  /**
   * A fixed rate holds for a deposit seen before the deposit deadline and confirmed before the deadline plus
   * this (docs/treasury.md); a later confirmation is a late deposit.
   */
  readonly fixedRateConfirmationGraceSeconds: number;
  /** The largest share of an asset's liquidity one partner's quotes and swaps may hold (percent, decimal string; production). */
  readonly liquidityPartnerSharePercent: string;
  /**
   * Hot-wallet rules by asset key (`USDT/ETH`): below the minimum an alert; above the maximum the surplus is
   * for cold storage (docs/treasury.md). Decimal strings; an asset not named has no rule.
   */
  readonly hotWalletMin: Readonly<Record<string, string>>;
  readonly hotWalletMax: Readonly<Record<string, string>>;
  readonly idempotencyTtlSeconds: number;
  readonly challengeTtlSeconds: number;
  readonly expectDepositSeconds: number;
  /** How often a permanent route's addresses are polled for deposits, and how often inside an expect-deposit window. */
  readonly routePollSeconds: number;
  readonly routeExpectPollSeconds: number;
  /**
   * Permanent routes under abuse (docs/routes.md, the limits on routes): the per-partner route quota; the idle time
   * after which a route's poll interval doubles (again after each further idle period) up to the cap; and the
   * factor applied to every catalogue dust floor (decimal string; 0 turns the floors off).
   */
  readonly routeMaxPerPartner: number;
  readonly routeIdleSeconds: number;
  readonly routePollMaxSeconds: number;
  readonly routeDustFloorFactor: string;
  readonly webhookRetrySeconds: readonly number[];
  /** Time limit of one webhook delivery attempt (connect, request and response). */
  readonly webhookTimeoutSeconds: number;
  /** Production: seconds between probes of each network's node (tip, hot-wallet balance, fee estimate). */
  readonly networkProbeSeconds: number;
  /**
   * GROUP_COMMIT (`on`, or `off`: a measuring switch for `make bench`): whether concurrent writes share a
   * statement (store/group-commit.ts), or each is written by one of its own.
   */
  readonly groupCommit: boolean;
  /** Let webhooks reach loopback, private and other non-public addresses (local development; sandbox only). */
  readonly webhookAllowPrivateTargets: boolean;
  /** Webhook URLs must use https (production); the sandbox takes http too. */
  readonly webhookRequireHttps: boolean;
  /**
   * WEBHOOK_ALLOW_PRIVATE_TARGETS may be turned on here (sandbox: a developer's own server), so a refused
   * address's error says how; production refuses to start with it, and its errors do not mention it.
   */
  readonly webhookCanAllowPrivateTargets: boolean;
  /** Webhook requests one instance has in flight to one partner's receiver at most. */
  readonly webhookMaxConcurrentPerPartner: number;
  /** Webhook requests one instance has in flight at most, all partners together. */
  readonly webhookMaxInFlight: number;
  readonly sandboxBlockSeconds: number;
  /**
   * A test hook (sandbox only): the payout sender kills the process right after it committed a payout's signed
   * bytes (`after-sign`) or right after it broadcast them (`after-broadcast`). Unset: never.
   */
  readonly payoutCrashAt: 'after-sign' | 'after-broadcast' | undefined;
  /** Interval of the comment heartbeat on open swap streams. */
  readonly streamHeartbeatSeconds: number;
  /** Port of the Prometheus metrics listener (GET /metrics); undefined: no metrics listener. */
  readonly metricsPort: number | undefined;
  /** Address the metrics listener binds to. */
  readonly metricsHost: string;
  readonly rateLimits: RateLimitConfig;
  readonly streamLimits: StreamLimitConfig;
  /** Production's networks and prices (server/production-config.ts); undefined in the sandbox. */
  readonly production: ProductionConfig | undefined;
  /** Address screening (docs/screening.md): the denylist, the provider, its time limit and fail mode. */
  readonly screening: ScreeningConfig;
}

/** SCREENING_*: what screens addresses; neither a denylist nor a URL: screening is off. */
export interface ScreeningConfig {
  /** SCREENING_DENYLIST_FILE, read and parsed at start (a bad line stops the process). */
  readonly denylist: Denylist | undefined;
  /** SCREENING_URL: the provider asked `POST {network, address, role}`. */
  readonly url: string | undefined;
  /** SCREENING_TIMEOUT_MS: time limit of one provider request (default 2000). */
  readonly timeoutMs: number;
  /**
   * SCREENING_FAIL_MODE: what a provider's failure (timeout, error, malformed answer) counts as. `closed`
   * (default): review, nothing moves until an operator looks, since money sent to a sanctioned address
   * cannot be called back; `open`: allowed.
   */
  readonly failMode: 'closed' | 'open';
}

/** CORS_ORIGINS: the origins listed, or `*` for any. */
export type CorsOrigins = '*' | readonly string[];

/** Which proxies' X-Forwarded-For to believe: none, the nearest `n` hops, or those at these addresses/ranges. */
export type TrustProxy = false | number | readonly string[];

/** Requests allowed per window (a minute unless RATE_LIMIT_WINDOW_SECONDS says otherwise) for each class. */
export interface RateLimitConfig {
  readonly windowSeconds: number;
  readonly publicPerMinute: number;
  readonly signedPerMinute: number;
  readonly quotesPerMinute: number;
  readonly swapsPerMinute: number;
}

/**
 * The largest STREAM_MAX_LIFETIME_SECONDS: a day. The lifetime exists to bound how long one connection holds
 * a place and to move clients between instances; past a day it does neither. It also keeps the timer far
 * below setTimeout's 2^31-1 ms (about 24.8 days), past which Node fires it after 1 ms and ends every stream.
 */
export const STREAM_MAX_LIFETIME_LIMIT_SECONDS = 86_400;

/** Concurrent swap streams allowed on one instance, by scope, and how long one stream may stay open. */
export interface StreamLimitConfig {
  readonly maxPerToken: number;
  readonly maxPerIp: number;
  readonly maxPerPartner: number;
  readonly maxPerInstance: number;
  /** The server ends a stream after this long (less up to 10 % jitter); the client resumes with Last-Event-ID. */
  readonly maxLifetimeSeconds: number;
}

/**
 * What the service mode decides besides defaults and validation. Decided here, from SERVICE_MODE, once: the
 * rest of the service reads these and never asks which mode it runs in (only the entry points do, to
 * choose what to build: server/main.ts and the command-line tools in scripts/).
 */
export type ModeCapabilities = Pick<
  Config,
  'secretsKeyFallback' | 'signingKeyFallback' | 'webhookRequireHttps' | 'webhookCanAllowPrivateTargets'
>;

/** The capabilities of `mode` (also for tests that force a mode loadConfig refuses to start in). */
export function modeCapabilities(mode: ServiceMode): ModeCapabilities {
  const sandbox = mode === 'sandbox';
  return {
    secretsKeyFallback: sandbox,
    signingKeyFallback: sandbox,
    webhookRequireHttps: !sandbox,
    webhookCanAllowPrivateTargets: sandbox,
  };
}

/** Raised when the environment holds a value the service cannot run with. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Parses and validates the environment into a frozen Config; throws ConfigError listing every problem. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = createReader(env, problems);

  const serviceMode = read.oneOf('SERVICE_MODE', ['sandbox', 'production'] as const, 'sandbox');
  const nodeEnv = env.NODE_ENV ?? 'development';
  const port = read.integer('PORT', 8080, { min: 0, max: 65535 });
  const host = read.string('HOST', '127.0.0.1');
  const config: Config = {
    port,
    host,
    databaseUrl: read.optionalUrl('DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: path.resolve(read.string('DATA_DIR', '.data')),
    publicOrigin: read.origin('PUBLIC_ORIGIN', listeningOrigin(host, port)),
    trustProxy: read.trustProxy('TRUST_PROXY'),
    corsOrigins: read.corsOrigins('CORS_ORIGINS'),
    serviceMode,
    ...modeCapabilities(serviceMode),
    secretsKey: read.optionalSecretsKey('SECRETS_KEY'),
    signingKeyFile: read.optionalKeyFile('SIGNING_KEY_FILE', readSigningKey),
    signingPreviousKeysFile: read.optionalKeyFile('SIGNING_PREVIOUS_KEYS_FILE', readPreviousSigningKeys),
    logLevel: read.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    printBanner: read.boolean('PRINT_BANNER', serviceMode === 'sandbox'),
    validateResponses: read.boolean('VALIDATE_RESPONSES', nodeEnv !== 'production'),
    quoteTtlSeconds: read.integer('QUOTE_TTL_SECONDS', 120, { min: 1 }),
    depositWindowSeconds: read.integer('DEPOSIT_WINDOW_SECONDS', 1800, { min: 1 }),
    overdueGraceSeconds: read.integer('OVERDUE_GRACE_SECONDS', 86400, { min: 1 }),
    fixedRateConfirmationGraceSeconds: read.integer('FIXED_RATE_CONFIRMATION_GRACE_SECONDS', 3600, { min: 0 }),
    liquidityPartnerSharePercent: read.decimal('LIQUIDITY_PARTNER_SHARE_PERCENT', '50'),
    hotWalletMin: read.assetAmounts('HOT_WALLET_MIN'),
    hotWalletMax: read.assetAmounts('HOT_WALLET_MAX'),
    idempotencyTtlSeconds: read.integer('IDEMPOTENCY_TTL_SECONDS', 86400, { min: 1 }),
    challengeTtlSeconds: read.integer('CHALLENGE_TTL_SECONDS', 600, { min: 1 }),
    expectDepositSeconds: read.integer('EXPECT_DEPOSIT_SECONDS', 1800, { min: 1 }),
    routePollSeconds: read.positiveNumber('ROUTE_POLL_SECONDS', 60),
    routeExpectPollSeconds: read.positiveNumber('ROUTE_EXPECT_POLL_SECONDS', 5),
    routeMaxPerPartner: read.integer('ROUTE_MAX_PER_PARTNER', 20_000, { min: 1 }),
    routeIdleSeconds: read.positiveNumber('ROUTE_IDLE_SECONDS', 86_400),
    routePollMaxSeconds: read.positiveNumber('ROUTE_POLL_MAX_SECONDS', 3_600),
    routeDustFloorFactor: read.decimal('ROUTE_DUST_FLOOR_FACTOR', '1'),
    webhookRetrySeconds: read.secondsList('WEBHOOK_RETRY_SECONDS', [5, 300, 1800, 7200, 18000, 36000, 36000]),
    webhookTimeoutSeconds: read.positiveNumber('WEBHOOK_TIMEOUT_SECONDS', 10),
    networkProbeSeconds: read.positiveNumber('NETWORK_PROBE_SECONDS', 5),
    groupCommit: read.oneOf('GROUP_COMMIT', ['on', 'off'] as const, 'on') === 'on',
    webhookAllowPrivateTargets: read.boolean('WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    webhookMaxConcurrentPerPartner: read.integer('WEBHOOK_MAX_CONCURRENT_PER_PARTNER', 4, { min: 1, max: 1000 }),
    webhookMaxInFlight: read.integer('WEBHOOK_MAX_IN_FLIGHT', 128, { min: 1, max: 10000 }),
    sandboxBlockSeconds: read.positiveNumber('SANDBOX_BLOCK_SECONDS', 2),
    payoutCrashAt:
      env.PAYOUT_CRASH_AT === undefined
        ? undefined
        : read.oneOf('PAYOUT_CRASH_AT', ['after-sign', 'after-broadcast'] as const, 'after-sign'),
    streamHeartbeatSeconds: read.positiveNumber('STREAM_HEARTBEAT_SECONDS', 15),
    metricsPort: read.optionalInteger('METRICS_PORT', { min: 1, max: 65535 }),
    metricsHost: read.string('METRICS_HOST', '127.0.0.1'),
    rateLimits: {
      windowSeconds: read.integer('RATE_LIMIT_WINDOW_SECONDS', 60, { min: 1, max: 3600 }),
      publicPerMinute: read.integer('RATE_LIMIT_PUBLIC_PER_MINUTE', 300, { min: 1 }),
      signedPerMinute: read.integer('RATE_LIMIT_SIGNED_PER_MINUTE', 600, { min: 1 }),
      quotesPerMinute: read.integer('RATE_LIMIT_QUOTES_PER_MINUTE', 120, { min: 1 }),
      swapsPerMinute: read.integer('RATE_LIMIT_SWAPS_PER_MINUTE', 60, { min: 1 }),
    },
    streamLimits: {
      maxPerToken: read.integer('STREAM_MAX_PER_TOKEN', 3, { min: 1 }),
      maxPerIp: read.integer('STREAM_MAX_PER_IP', 200, { min: 1 }),
      maxPerPartner: read.integer('STREAM_MAX_PER_PARTNER', 1000, { min: 1 }),
      maxPerInstance: read.integer('STREAM_MAX_PER_INSTANCE', 10000, { min: 1 }),
      maxLifetimeSeconds: read.positiveNumber('STREAM_MAX_LIFETIME_SECONDS', 3600, { max: STREAM_MAX_LIFETIME_LIMIT_SECONDS }),
    },
    production: serviceMode === 'production' ? readProductionConfig(env, problems) : undefined,
    screening: {
      denylist: readDenylist(read.string('SCREENING_DENYLIST_FILE', ''), problems),
      url: read.optionalUrl('SCREENING_URL', ['http:', 'https:']),
      timeoutMs: read.integer('SCREENING_TIMEOUT_MS', 2000, { min: 1, max: 60_000 }),
      failMode: read.oneOf('SCREENING_FAIL_MODE', ['closed', 'open'] as const, 'closed'),
    },
  };

  if (serviceMode === 'production') {
    if (!config.secretsKey) problems.push('SECRETS_KEY is required when SERVICE_MODE=production');
    if (!config.databaseUrl) problems.push('DATABASE_URL is required when SERVICE_MODE=production');
    if (!config.signingKeyFile && (env.SIGNING_KEY_FILE ?? '').trim() === '') {
      problems.push(
        'SIGNING_KEY_FILE is required when SERVICE_MODE=production: the PKCS#8 PEM private key that signs deposit instructions, e.g. from: openssl genpkey -algorithm ed25519 -out signing-key.pem (chmod 600; docs/signing.md#signed-deposit-instructions)',
      );
    }
    if (!config.publicOrigin.startsWith('https://')) problems.push('PUBLIC_ORIGIN must be https when SERVICE_MODE=production');
  }
  // Market prices must agree more tightly than the smallest fee the catalogue (the one production serves) charges.
  if (config.production) problems.push(...spreadFeeProblems(config.production.rates.maxSpreadPercent, loadSandboxCatalog()));
  const share = new Money(config.liquidityPartnerSharePercent);
  if (!(share.greaterThan(0) && share.lessThanOrEqualTo(100))) {
    problems.push(
      `LIQUIDITY_PARTNER_SHARE_PERCENT=${config.liquidityPartnerSharePercent} must be above 0 and at most 100: the share of an asset's liquidity one partner may hold`,
    );
  }
  for (const [key, max] of Object.entries(config.hotWalletMax)) {
    const min = config.hotWalletMin[key];
    if (min !== undefined && !new Money(max).greaterThan(min)) {
      problems.push(
        `HOT_WALLET_MAX of ${key} (${max}) must be above its HOT_WALLET_MIN (${min}): the surplus goes down to halfway between them`,
      );
    }
  }
  if (config.routePollMaxSeconds < config.routePollSeconds) {
    problems.push(
      `ROUTE_POLL_MAX_SECONDS=${config.routePollMaxSeconds} must be at least ROUTE_POLL_SECONDS=${config.routePollSeconds}: it caps the idle backoff`,
    );
  }
  if (serviceMode === 'production' && config.corsOrigins === '*') {
    problems.push(
      'CORS_ORIGINS=* lets every website read swaps with an access token it obtains; it is for a sandbox only. In production list the origins of your frontends, e.g. CORS_ORIGINS=https://app.example.com',
    );
  }
  if (serviceMode === 'production' && config.payoutCrashAt) {
    problems.push('PAYOUT_CRASH_AT is a test hook of the sandbox; production never kills itself mid-payout');
  }
  if (config.webhookAllowPrivateTargets && !config.webhookCanAllowPrivateTargets) {
    problems.push(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS=true is for local development in sandbox mode; production webhooks reach public addresses only',
    );
  }
  if (config.webhookMaxInFlight < config.webhookMaxConcurrentPerPartner) {
    problems.push(
      `WEBHOOK_MAX_IN_FLIGHT=${config.webhookMaxInFlight} must be at least WEBHOOK_MAX_CONCURRENT_PER_PARTNER=${config.webhookMaxConcurrentPerPartner}`,
    );
  }
  if (config.metricsPort !== undefined && config.metricsPort === config.port) {
    problems.push(`METRICS_PORT=${config.metricsPort} must differ from PORT: metrics are never served on the API port`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    ...config,
    rateLimits: Object.freeze(config.rateLimits),
    streamLimits: Object.freeze(config.streamLimits),
    screening: Object.freeze(config.screening),
  });
}

// SCREENING_DENYLIST_FILE read and parsed once, against every network the catalogue knows; undefined when unset.
function readDenylist(file: string, problems: string[]): Denylist | undefined {
  if (file === '') return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    problems.push(`SCREENING_DENYLIST_FILE=${JSON.stringify(file)} cannot be read: ${(err as Error).message}`);
    return undefined;
  }
  try {
    return parseDenylist(text, `SCREENING_DENYLIST_FILE ${file}`, Object.keys(loadSandboxCatalog().networks));
  } catch (err) {
    if (!(err instanceof DenylistError)) throw err;
    problems.push(err.message);
    return undefined;
  }
}

function createReader(env: Env, problems: string[]) {
  const raw = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  return {
    string(name: string, fallback: string): string {
      return raw(name) ?? fallback;
    },
    integer(name: string, fallback: number, { min = -Infinity, max = Infinity } = {}): number {
      const value = raw(name);
      if (value === undefined) return fallback;
      const n = Number(value);
      if (!/^-?\d+$/.test(value) || n < min || n > max) {
        problems.push(`${name}=${JSON.stringify(value)} must be an integer${describeRange(min, max)}`);
        return fallback;
      }
      return n;
    },
    positiveNumber(name: string, fallback: number, { max = Infinity } = {}): number {
      const value = raw(name);
      if (value === undefined) return fallback;
      const n = Number(value);
      if (!/^\d+(\.\d+)?$/.test(value) || n <= 0 || n > max) {
        problems.push(
          `${name}=${JSON.stringify(value)} must be a positive number of seconds${max < Infinity ? ` of at most ${max}` : ''}, e.g. 0.25`,
        );
        return fallback;
      }
      return n;
    },
    decimal(name: string, fallback: string): string {
      const value = raw(name);
      if (value === undefined) return fallback;
      if (!/^\d{1,9}(\.\d{1,18})?$/.test(value)) {
        problems.push(`${name}=${JSON.stringify(value)} must be a non-negative decimal number, e.g. 1 or 2.5`);
        return fallback;
      }
      return value;
    },
    boolean(name: string, fallback: boolean): boolean {
      const value = raw(name);
      if (value === undefined) return fallback;
      if (['1', 'true', 'yes'].includes(value.toLowerCase())) return true;
      if (['0', 'false', 'no'].includes(value.toLowerCase())) return false;
      problems.push(`${name}=${JSON.stringify(value)} must be true or false`);
      return fallback;
    },
    oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
      const value = raw(name);
      if (value === undefined) return fallback;
      if (!(allowed as readonly string[]).includes(value)) {
        problems.push(`${name}=${JSON.stringify(value)} must be one of ${allowed.join(', ')}`);
        return fallback;
      }
      return value as T;
    },
    optionalInteger(name: string, range: { min?: number; max?: number }): number | undefined {
      return raw(name) === undefined ? undefined : this.integer(name, 0, range);
    },
    trustProxy(name: string): TrustProxy {
      const value = raw(name);
      if (value === undefined || ['false', '0', 'no'].includes(value.toLowerCase())) return false;
      if (/^\d+$/.test(value)) return Number(value);
      const entries = value.split(',').map((entry) => entry.trim());
      const bad = entries.filter((entry) => !isProxyAddress(entry));
      if (value.toLowerCase() === 'true' || bad.length > 0) {
        problems.push(
          `${name}=${JSON.stringify(value)} must be false, a hop count (1 for one proxy in front), or a comma-separated list of the proxies' addresses or CIDR ranges (e.g. 10.0.0.0/8,127.0.0.1)` +
            (value.toLowerCase() === 'true'
              ? '; true would believe any X-Forwarded-For a client sends'
              : `; not an address or range: ${bad.join(', ')}`),
        );
        return false;
      }
      return Object.freeze(entries);
    },
    corsOrigins(name: string): CorsOrigins {
      const value = raw(name);
      if (value === undefined) return Object.freeze([]);
      const parsed = parseCorsOrigins(name, value);
      if ('problem' in parsed) {
        problems.push(parsed.problem);
        return Object.freeze([]);
      }
      return parsed.origins;
    },
    optionalUrl(name: string, protocols: string[]): string | undefined {
      const value = raw(name);
      if (value === undefined) return undefined;
      try {
        const url = new URL(value);
        if (!protocols.includes(url.protocol)) throw new Error('protocol');
        return value;
      } catch {
        problems.push(`${name} must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`);
        return undefined;
      }
    },
    origin(name: string, fallback: string): string {
      const value = raw(name) ?? fallback;
      if (isOrigin(value)) return value;
      problems.push(
        `${name}=${JSON.stringify(value)} must be an origin such as https://swap.example.com (scheme, host, optional port; no path or trailing slash)`,
      );
      return fallback;
    },
    optionalSecretsKey(name: string): string | undefined {
      const value = raw(name);
      if (value === undefined) return undefined;
      if (!/^[0-9a-f]{64}$/i.test(value)) {
        problems.push(`${name} must be 64 hex characters (32 bytes), e.g. from: openssl rand -hex 32`);
        return undefined;
      }
      return value.toLowerCase();
    },
    /** A key file's path, checked at start by `check` (which throws what is wrong with it). */
    optionalKeyFile(name: string, check: (file: string) => unknown): string | undefined {
      const value = raw(name);
      if (value === undefined) return undefined;
      const file = path.resolve(value);
      try {
        check(file);
      } catch (err) {
        problems.push(`${name} (${file}): ${(err as Error).message}`);
        return undefined;
      }
      return file;
    },
    /** `SYMBOL/NETWORK=amount,...` (HOT_WALLET_MIN, HOT_WALLET_MAX): decimal amounts by asset key. */
    assetAmounts(name: string): Readonly<Record<string, string>> {
      const value = raw(name);
      if (value === undefined) return {};
      const amounts: Record<string, string> = {};
      for (const entry of value.split(',').map((s) => s.trim())) {
        const match = /^([A-Za-z0-9]{2,12})\/([A-Z0-9]{2,10})=((?:0|[1-9]\d*)(?:\.\d{1,18})?)$/.exec(entry);
        if (!match) {
          problems.push(
            `${name}=${JSON.stringify(value)} must list SYMBOL/NETWORK=amount entries, e.g. LTC/LTC=1,USDT/ETH=500; not one: ${JSON.stringify(entry)}`,
          );
          return {};
        }
        amounts[`${match[1]}/${match[2]}`] = match[3];
      }
      return Object.freeze(amounts);
    },
    secondsList(name: string, fallback: number[]): number[] {
      const value = raw(name);
      if (value === undefined) return fallback;
      const parts = value.split(',').map((s) => s.trim());
      if (parts.length === 0 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) {
        problems.push(`${name}=${JSON.stringify(value)} must be a comma-separated list of seconds, e.g. 5,300,1800`);
        return fallback;
      }
      return parts.map(Number);
    },
  };
}

/**
 * Parses a list of origins written as CORS_ORIGINS is (`*` alone, or origins separated by commas); `name` is the
 * variable the value came from, for the problem. Exported for `make mock`'s MOCK_CORS_ORIGINS.
 */
export function parseCorsOrigins(name: string, value: string): { origins: CorsOrigins } | { problem: string } {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 1 && entries[0] === '*') return { origins: '*' };
  const bad = entries.filter((entry) => !isOrigin(entry));
  if (bad.length > 0) {
    return {
      problem: `${name}=${JSON.stringify(value)} must be a comma-separated list of origins such as https://app.example.com,http://localhost:5173 (scheme, host, optional port; no path or trailing slash), or * alone (sandbox only); not an origin: ${bad.join(', ')}`,
    };
  }
  return { origins: Object.freeze(entries) };
}

// The origin clients of a server listening on host:port use: localhost for a loopback or wildcard address
// (a newcomer's client on the same machine), the host itself otherwise.
function listeningOrigin(host: string, port: number): string {
  const local = ['127.0.0.1', 'localhost', '::1', '0.0.0.0', '::'].includes(host.toLowerCase());
  const name = local ? 'localhost' : isIP(host) === 6 ? `[${host}]` : host.toLowerCase();
  return port === 80 ? `http://${name}` : `http://${name}:${port}`;
}

// An http(s) origin exactly as a browser sends it in Origin: scheme, host, optional port, lower case, no path.
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return ['http:', 'https:'].includes(url.protocol) && url.origin === value;
  } catch {
    return false;
  }
}

// An IP address, a CIDR range (address/prefix length) or one of proxy-addr's names for reserved ranges.
function isProxyAddress(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function describeRange(min: number, max: number): string {
  if (Number.isFinite(min) && Number.isFinite(max)) return ` from ${min} to ${max}`;
  if (Number.isFinite(min)) return ` of at least ${min}`;
  return '';
}
