/**
 * The private-network guard: which addresses a model-chosen URL may not reach (loopback, private,
 * link-local, cloud metadata, and the IPv6 forms that embed such an IPv4 address), and a DNS
 * lookup for node:http that refuses names resolving to one. The connection then goes to the very
 * address that was checked, so a name cannot pass the check and rebind before connecting.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP } from "node:net";

/**
 * [first address, prefix length, what it is]. Documentation and benchmarking ranges are left
 * out on purpose: they are not private, and proxies map public names into them (fake-IP DNS).
 */
const BLOCKED_V4: [string, number, string][] = [
  ["0.0.0.0", 8, "the unspecified network"],
  ["10.0.0.0", 8, "a private network"],
  ["100.64.0.0", 10, "a carrier-grade NAT network"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (cloud metadata lives here)"],
  ["172.16.0.0", 12, "a private network"],
  ["192.0.0.0", 24, "an IETF protocol assignment"],
  ["192.168.0.0", 16, "a private network"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "a reserved network"],
];

function v4Number(address: string): number {
  return address.split(".").reduce((sum, part) => sum * 256 + Number(part), 0);
}

const V4_RANGES = BLOCKED_V4.map(([start, bits, what]) => ({
  start: v4Number(start),
  size: 2 ** (32 - bits),
  what,
}));

function blockedV4(address: string): string | undefined {
  const n = v4Number(address);
  return V4_RANGES.find((range) => n >= range.start && n < range.start + range.size)?.what;
}

/** The eight 16-bit groups of an IPv6 address (zone id dropped, embedded IPv4 expanded). */
function v6Groups(address: string): number[] {
  let text = address.split("%")[0].toLowerCase();
  const v4 = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (v4) {
    const n = v4Number(v4[1]);
    text = text.slice(0, -v4[1].length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const parse = (part: string | undefined) =>
    part ? part.split(":").map((group) => parseInt(group, 16)) : [];
  const front = parse(head);
  const back = parse(tail);
  const fill = tail === undefined ? [] : new Array(8 - front.length - back.length).fill(0);
  return [...front, ...fill, ...back];
}

function embeddedV4(groups: number[], at: number): string {
  const hi = groups[at];
  const lo = groups[at + 1];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

function blockedV6(address: string): string | undefined {
  const g = v6Groups(address);
  const zero = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  const zeroUpTo = (n: number) => zero(0, n);
  if (zeroUpTo(8)) return "the unspecified address";
  if (zeroUpTo(7) && g[7] === 1) return "loopback";
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) carry an IPv4 address.
  if (zeroUpTo(5) && (g[5] === 0xffff || g[5] === 0)) return blockedV4(embeddedV4(g, 6));
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) reach an IPv4 address too.
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return blockedV4(embeddedV4(g, 6));
  if (g[0] === 0x2002) return blockedV4(embeddedV4(g, 1));
  // Local-use NAT64 (64:ff9b:1::/48) may put the IPv4 address anywhere a site chooses.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "a local-use NAT64 network";
  // Teredo (2001::/32) tunnels to an IPv4 address hidden in the address (its client part is
  // inverted) through whichever relay is nearest: refused whole, as nothing public needs it.
  if (g[0] === 0x2001 && g[1] === 0) return "a Teredo tunnel (which reaches IPv4 addresses)";
  if ((g[0] & 0xfe00) === 0xfc00) return "a private (unique local) network";
  if ((g[0] & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0] & 0xffc0) === 0xfec0) return "a site-local network";
  if ((g[0] & 0xff00) === 0xff00) return "multicast";
  if (g[0] === 0x100 && zero(1, 4)) return "a discard network";
  return undefined;
}

/** What kind of non-public address `address` is, or undefined when it is public. */
export function privateAddressKind(address: string): string | undefined {
  const family = isIP(address.split("%")[0]);
  if (family === 4) return blockedV4(address);
  if (family === 6) return blockedV6(address);
  return undefined;
}

/** Names that only ever mean this machine or its own network. */
const LOCAL_NAMES = /(^|\.)(localhost|localdomain|local|internal|intranet|lan|home\.arpa)$/;

/**
 * What a host is as written, when whoever connects resolves it elsewhere (a proxy): an address
 * literal's kind, or a name that can only mean a local network (localhost, *.local, *.internal,
 * one-label names); undefined for an address or name that may be public. `host` is lower case,
 * without brackets or a trailing dot.
 */
export function hostAsWrittenKind(host: string): string | undefined {
  if (isIP(host)) return privateAddressKind(host);
  if (LOCAL_NAMES.test(host)) return "a name for a local network";
  if (!host.includes(".")) return "a one-label name, which can only mean a local host";
  return undefined;
}

/** The refusal for a host (as named in the URL) that is, or resolved to, `address`. */
export function refusal(host: string, address: string, kind: string): string {
  const via = host === address ? "" : ` (it resolves to ${address})`;
  return `${host}${via} is ${kind}, and fetching private-network addresses is off. ` +
    "The user can allow it by starting toolhost with --allow-private-network.";
}

export class GuardError extends Error {
  readonly code = "EPRIVATE";
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:http(s) requests that resolves every address of the name and refuses the
 * name when any of them is private: round-robin answers must not smuggle one in.
 */
export function guardedLookup(
  hostname: string,
  options: { all?: boolean; family?: number | string } | number,
  callback: LookupCallback,
): void {
  const family = typeof options === "number" ? options : Number(options?.family ?? 0) || 0;
  dnsLookup(hostname, { all: true, family }, (error, addresses) => {
    if (error) return callback(error, []);
    for (const { address } of addresses) {
      const kind = privateAddressKind(address);
      if (kind) return callback(new GuardError(refusal(hostname, address, kind)), []);
    }
    if (typeof options === "object" && options?.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

/** Schemes a rendered page may use that never leave the browser. */
const LOCAL_SCHEMES = new Set(["data:", "blob:", "about:"]);

/**
 * The guard for URLs a browser is about to load: the refusal, or undefined when allowed. Unlike
 * guardedLookup it cannot pin the address the browser then connects to; see docs/security.md.
 */
export async function refusalForUrl(
  url: string,
  allowPrivate: boolean,
): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${url} is not a valid URL.`;
  }
  if (LOCAL_SCHEMES.has(parsed.protocol)) return undefined;
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `Only http and https URLs can be loaded, not ${parsed.protocol}.`;
  }
  if (allowPrivate) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  let addresses: { address: string }[];
  try {
    addresses = isIP(host) ? [{ address: host }] : await lookupAll(host);
  } catch (error) {
    // Unchecked is refused: a name that fails now may resolve privately a moment later.
    return `The name ${host} could not be resolved (${(error as Error).message}), so it was ` +
      "not loaded.";
  }
  for (const { address } of addresses) {
    const kind = privateAddressKind(address);
    if (kind) return refusal(host, address, kind);
  }
  return undefined;
}

const LOOKUP_TIMEOUT_MS = 5_000;

function lookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no answer within ${LOOKUP_TIMEOUT_MS / 1000} s`)),
      LOOKUP_TIMEOUT_MS,
    );
    dnsLookup(host, { all: true }, (error, addresses) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(addresses);
    });
  });
}
