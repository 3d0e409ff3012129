/**
 * Which webhook URLs the service may call (docs/architecture.md#streams-and-webhooks). In every mode a URL's host must be, or resolve only
 * to, global unicast addresses: no loopback, private, carrier-grade NAT, link-local (cloud metadata lives
 * there), multicast, reserved or documentation address, in IPv4 or IPv6. IPv6 forms that carry an IPv4
 * address are judged by that address where it can be read reliably (mapped, translated, the well-known
 * NAT64 prefix) and refused outright where it cannot (local-use NAT64, 6to4, Teredo): see IPV6_RULES.
 * Production also requires https (`requireHttps`). `allowPrivateTargets` (WEBHOOK_ALLOW_PRIVATE_TARGETS,
 * sandbox only) lifts the address rules for local development.
 * The policy comes from the configuration's capabilities (config.ts modeCapabilities), not the mode itself.
 * Pure: name resolution is handed in by the caller.
 */
import { isIP } from 'node:net';

/** Resolves a host name to every address it has (dns.promises.lookup with `all: true` fits). */
export type ResolveHost = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** What decides whether a URL and an address may receive webhooks. */
export interface TargetPolicy {
  /** Refuse http URLs (production). */
  requireHttps: boolean;
  /** Accept any address (local development; config.ts allows it in sandbox mode only). */
  allowPrivateTargets: boolean;
  /** `allowPrivateTargets` could be turned on here (sandbox), so a refusal says how. */
  canAllowPrivateTargets: boolean;
}

/** A URL or address the service will not call, with the reason in words a partner can act on. */
export class WebhookTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookTargetError';
  }
}

// [first address, prefix length, what it is]. Everything not listed is a global unicast IPv4 address.
const IPV4_RULES: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a carrier-grade NAT (shared) address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address (cloud metadata services live there)'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'an IETF protocol address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a 6to4 relay anycast address (deprecated)'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
];

// [first address, prefix length, what it is, where its IPv4 address sits (last 32 bits) when judged by it].
// The first match decides. Only global unicast (2000::/3) passes; inside it, the listed ranges do not.
// Judged by the IPv4 address they carry: mapped and translated addresses (how a dual-stack socket names an
// IPv4 peer) and the well-known NAT64 prefix (how an IPv6-only network with DNS64 reaches a public IPv4
// receiver): refusing them would refuse legitimate receivers, and their IPv4 address is exactly what is
// reached. Refused outright: local-use NAT64 (RFC 8215: where the IPv4 address sits depends on the prefix
// length the local network chose, so it cannot be read, and it is local by definition), 6to4 (deprecated by
// RFC 7526; a relay on the service's network would deliver to the IPv4 address inside) and Teredo (a NAT
// traversal tunnel whose client address is obfuscated; no receiver is served from one).
const IPV6_RULES: Array<[string, number, string, 'embedded'?]> = [
  ['::', 128, 'the unspecified address'],
  ['::1', 128, 'a loopback address'],
  ['::ffff:0:0', 96, 'an IPv4-mapped address', 'embedded'],
  ['::ffff:0:0:0', 96, 'an IPv4-translated address', 'embedded'],
  ['64:ff9b::', 96, 'a NAT64 address', 'embedded'],
  ['64:ff9b:1::', 48, 'a local-use NAT64 address (the IPv4 address it reaches cannot be told)'],
  ['::', 96, 'an IPv4-compatible (deprecated) address'],
  ['100::', 64, 'a discard-only address'],
  ['fc00::', 7, 'a unique local (private) address'],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a site-local address'],
  ['ff00::', 8, 'a multicast address'],
  ['2001::', 32, 'a Teredo tunnel address (it carries a NAT client, not a server)'],
  ['2001:2::', 48, 'a benchmarking address'],
  ['2001:10::', 28, 'an ORCHID identifier, not a routable address'],
  ['2001:20::', 28, 'an ORCHID identifier, not a routable address'],
  ['2001:db8::', 32, 'a documentation address'],
  ['2002::', 16, 'a 6to4 address (deprecated; it tunnels to the IPv4 address inside)'],
  ['3fff::', 20, 'a documentation address'],
];
const GLOBAL_UNICAST_IPV6: [string, number] = ['2000::', 3];

/**
 * Why `address` (an IP literal, brackets and zone allowed) may not receive webhooks, or undefined when it
 * is a global unicast address. An IPv6 address carrying an IPv4 address is judged as IPV6_RULES says.
 */
export function forbiddenAddressReason(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return 'not an IP address';
  if (family === 4) {
    const value = ipv4Value(bare);
    return IPV4_RULES.find(([first, prefix]) => inPrefix(value, ipv4Value(first), prefix, 32))?.[2];
  }
  const value = ipv6Value(bare);
  const rule = IPV6_RULES.find(([first, prefix]) => inPrefix(value, ipv6Value(first), prefix, 128));
  if (rule?.[3] === 'embedded') {
    const embedded = [24n, 16n, 8n, 0n].map((shift) => Number((value >> shift) & 0xffn)).join('.');
    const reason = forbiddenAddressReason(embedded);
    return reason && `${rule[2]} of ${embedded}, ${reason}`;
  }
  if (rule) return rule[2];
  if (!inPrefix(value, ipv6Value(GLOBAL_UNICAST_IPV6[0]), GLOBAL_UNICAST_IPV6[1], 128)) {
    return 'not a global unicast address (outside 2000::/3)';
  }
  return undefined;
}

function inPrefix(value: bigint, first: bigint, prefix: number, bits: number): boolean {
  const shift = BigInt(bits - prefix);
  return value >> shift === first >> shift;
}

function ipv4Value(address: string): bigint {
  return address.split('.').reduce((sum, part) => (sum << 8n) | BigInt(Number(part)), 0n);
}

// An IPv6 address (valid, per isIP; with an optional dotted IPv4 tail) as a 128-bit number.
function ipv6Value(address: string): bigint {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4Value(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headWords = head ? head.split(':') : [];
  const tailWords = tail === undefined ? [] : tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - headWords.length - tailWords.length).fill('0');
  return [...headWords, ...fill, ...tailWords].reduce((sum, word) => (sum << 16n) | BigInt(parseInt(word, 16)), 0n);
}

/** The host of a URL without IPv6 brackets. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Checks the form of a webhook URL: http or https (https only when `requireHttps`, as in production), no user
 * name or password, no fragment. Returns the parsed URL; throws WebhookTargetError.
 */
export function checkWebhookUrlForm(text: string, requireHttps: boolean): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookTargetError('url is not an absolute URL, e.g. https://partner.example.org/hooks/swaps.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new WebhookTargetError('url must use https (or http in sandbox mode).');
  if (requireHttps && url.protocol !== 'https:') throw new WebhookTargetError('url must use https in production mode.');
  if (url.username || url.password) {
    throw new WebhookTargetError('url must not contain a user name or password; verify deliveries by their webhook-signature instead.');
  }
  if (url.hash) throw new WebhookTargetError('url must not contain a #fragment.');
  return url;
}

/**
 * The error for a connection to `address` that `policy` refuses (`host` the name that resolved to it, if
 * any), or undefined when it may be made.
 */
export function refusedAddress(address: string, policy: TargetPolicy, host?: string): WebhookTargetError | undefined {
  if (policy.allowPrivateTargets) return undefined;
  const reason = forbiddenAddressReason(address);
  if (!reason) return undefined;
  const via = host && host !== address ? ` (${host} resolves to it)` : '';
  // A developer running the sandbox on their own machine can lift the rule; a partner of a hosted one cannot.
  const hint = policy.canAllowPrivateTargets
    ? ' (a sandbox server run for local development can allow it: WEBHOOK_ALLOW_PRIVATE_TARGETS=true)'
    : '';
  return new WebhookTargetError(`url must reach a public address; ${address}${via} is ${reason}${hint}.`);
}

/**
 * Checks that every address `url`'s host resolves to may receive webhooks under `policy`. Throws
 * WebhookTargetError naming the address and why it is refused, or when the name does not resolve.
 */
export async function checkWebhookTarget(url: URL, policy: TargetPolicy, resolve: ResolveHost): Promise<void> {
  if (policy.allowPrivateTargets) return;
  const host = urlHost(url);
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await resolve(host)).map((entry) => entry.address);
    } catch (err) {
      throw new WebhookTargetError(`url host ${host} does not resolve (${(err as { code?: string }).code ?? 'lookup failed'}).`);
    }
    if (addresses.length === 0) throw new WebhookTargetError(`url host ${host} does not resolve to any address.`);
  }
  for (const address of addresses) {
    const refused = refusedAddress(address, policy, host);
    if (refused) throw refused;
  }
}
