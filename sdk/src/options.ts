/**
 * The options of createPartnerClient, in a module of their own: the client and its transport both read them,
 * and neither should have to import the other to know their shape.
 */
import type { RetryOptions } from './retry.js';

/** Options of createPartnerClient. */
export interface PartnerClientOptions {
  /** The API base URL including the version prefix, e.g. https://swap.example.com/api/v1. */
  baseUrl: string;
  /** The service origin every signature names (the deployment's PUBLIC_ORIGIN), e.g. https://swap.example.com. */
  audience: string;
  /** The partner key id. */
  keyId: string;
  /** The shared secret; keep it on the backend only. */
  secret: string;
  /** Your customer's identifier, sent as x-service-user (1-128 visible ASCII characters). */
  userId: string;
  /** fetch implementation (default globalThis.fetch); inject one to test or to add a proxy. */
  fetch?: (request: Request) => Promise<Response>;
  /** Retry bounds (default 3 retries, 250 ms doubling to 8 s with jitter, Retry-After up to 60 s). */
  retry?: RetryOptions;
  /** Appended to the User-Agent, e.g. "acme-wallet/2.3". */
  userAgent?: string;
  /** Milliseconds since the epoch (default Date.now); inject to test. */
  now?: () => number;
  /** Waits between retries and between polls (default setTimeout); inject to test. */
  sleep?: (ms: number) => Promise<void>;
}
