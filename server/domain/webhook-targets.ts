/**
 * Which webhook URLs the service may call (DESIGN 6.6). In production a URL must be https and every address
 * its host resolves to must be public: no loopback, private, carrier-grade NAT, link-local (cloud metadata
 * lives there), multicast or reserved address, in IPv4, IPv6 or IPv4 mapped into IPv6. Sandbox mode accepts
 * http and local addresses, so partners (and tests) can receive on their own machine.
 * Pure: name resolution is handed in by the caller.
 */
import { BlockList, isIP } from 'node:net';
import type { ServiceMode } from '../config.js';

/** Resolves a host name to every address it has (dns.promises.lookup with `all: true` fits). */
export type ResolveHost = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** A URL or address the service will not call, with the reason in words a partner can act on. */
export class WebhookTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookTargetError';
  }
}

// [first address, prefix length, what it is]
const FORBIDDEN_IPV4: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a carrier-grade NAT (shared) address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address (cloud metadata services live there)'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'an IETF protocol address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
];
const FORBIDDEN_IPV6: Array<[string, number, string]> = [
  ['::', 128, 'the unspecified address'],
  ['::1', 128, 'a loopback address'],
  ['::', 96, 'an IPv4-compatible (deprecated) address'],
  ['100::', 64, 'a discard-only address'],
  ['2001:db8::', 32, 'a documentation address'],
  ['fc00::', 7, 'a unique local (private) address'],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a site-local address'],
  ['ff00::', 8, 'a multicast address'],
];
// NAT64 (RFC 6052) carries an IPv4 address in its last 32 bits; that address is judged like any other.
const NAT64_PREFIX = new BlockList();
NAT64_PREFIX.addSubnet('64:ff9b::', 96, 'ipv6');

const rules = [
  ...FORBIDDEN_IPV4.map(([address, prefix, label]) => ({ list: subnet(address, prefix, 'ipv4'), label })),
  ...FORBIDDEN_IPV6.map(([address, prefix, label]) => ({ list: subnet(address, prefix, 'ipv6'), label })),
];

function subnet(address: string, prefix: number, type: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  list.addSubnet(address, prefix, type);
  return list;
}

/**
 * Why `address` (an IP literal) may not receive webhooks, or undefined when it is a public address.
 * IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are judged by their IPv4 address.
 */
export function forbiddenAddressReason(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return 'not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (type === 'ipv6' && NAT64_PREFIX.check(bare, 'ipv6')) {
    const words = expandIpv6(bare);
    const embedded = [words[6] >> 8, words[6] & 0xff, words[7] >> 8, words[7] & 0xff].join('.');
    return forbiddenAddressReason(embedded);
  }
  return rules.find((rule) => rule.list.check(bare, type))?.label;
}

// The eight 16-bit words of an IPv6 address (with an optional dotted IPv4 tail).
function expandIpv6(address: string): number[] {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headWords = head ? head.split(':') : [];
  const tailWords = tail === undefined ? [] : tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array(8 - headWords.length - tailWords.length).fill('0');
  return [...headWords, ...fill, ...tailWords].map((word) => parseInt(word, 16));
}

/** The host of a URL without IPv6 brackets. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Checks the form of a webhook URL: http or https (https only in production), no user name or password, no
 * fragment. Returns the parsed URL; throws WebhookTargetError.
 */
export function checkWebhookUrlForm(text: string, mode: ServiceMode): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookTargetError('url is not an absolute URL, e.g. https://partner.example.org/hooks/swaps.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new WebhookTargetError('url must use https (or http in sandbox mode).');
  if (mode === 'production' && url.protocol !== 'https:') throw new WebhookTargetError('url must use https in production mode.');
  if (url.username || url.password) {
    throw new WebhookTargetError('url must not contain a user name or password; verify deliveries by their webhook-signature instead.');
  }
  if (url.hash) throw new WebhookTargetError('url must not contain a #fragment.');
  return url;
}

/**
 * Checks that every address `url`'s host resolves to may receive webhooks in `mode` (always, in sandbox).
 * Throws WebhookTargetError naming the address and why it is refused, or when the name does not resolve.
 */
export async function checkWebhookTarget(url: URL, mode: ServiceMode, resolve: ResolveHost): Promise<void> {
  if (mode !== 'production') return;
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
    const reason = forbiddenAddressReason(address);
    if (reason) {
      const via = address === host ? '' : ` (${host} resolves to it)`;
      throw new WebhookTargetError(`url must reach a public address in production mode; ${address}${via} is ${reason}.`);
    }
  }
}
