/**
 * `sandbox.allow_network` read into rules, and which host and port they let through: an exact
 * name (any port), `*.suffix` (its subdomains), `name:port`, an IP address, or `"*"`. Hosts are
 * compared in the form a URL gives them (lower case, IDNA, IPv4 in dotted quads, IPv6
 * compressed), so `127.1`, `0x7f.0.0.1` and `127.0.0.1` are one address.
 */
import { isIP } from "node:net";

export interface HostRule {
  /** As written in the setting, for messages. */
  entry: string;
  /** Canonical host, without brackets; for a suffix rule, what follows `*.`. */
  host: string;
  suffix: boolean;
  /** Undefined: any port. */
  port?: number;
}

export interface NetworkRules {
  /** `"*"` was listed: every host, and commands keep the machine's network. */
  all: boolean;
  rules: HostRule[];
}

export interface HostMatch {
  rule: HostRule;
  /**
   * The entry names this host itself (not a `*.suffix`): the private-network guard does not
   * apply, so `localhost:5432` or `10.0.0.7` can be reached when listed.
   */
  explicit: boolean;
}

/**
 * A host as URLs write it, lower case, without brackets or a trailing dot; undefined when it is
 * not a host at all.
 */
export function canonicalHost(host: string): string | undefined {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  const literal = isIP(bare) === 6 ? `[${bare}]` : bare;
  if (!literal || /[\s/?#@\\]/.test(literal)) return undefined;
  try {
    const parsed = new URL(`http://${literal}/`).hostname;
    return parsed.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "") || undefined;
  } catch {
    return undefined;
  }
}

/** Splits `host:port`, `[v6]:port`, `v6` or `host` (a port from 1 to 65535). */
export function splitHostPort(text: string): { host: string; port?: number } | undefined {
  const bracketed = text.match(/^\[([^\]]+)\](?::(\d+))?$/);
  if (bracketed) return withPort(bracketed[1], bracketed[2]);
  if (isIP(text) === 6) return { host: text };
  const colon = text.match(/^([^:]*):(\d+)$/);
  if (colon) return withPort(colon[1], colon[2]);
  return text.includes(":") ? undefined : { host: text };
}

function withPort(
  host: string,
  port: string | undefined,
): { host: string; port?: number } | undefined {
  if (port === undefined) return { host };
  const number = Number(port);
  return Number.isInteger(number) && number >= 1 && number <= 65535
    ? { host, port: number }
    : undefined;
}

/** The rules of a list as the schema allows it; an entry that is not a host is left out. */
export function networkRules(entries: readonly string[]): NetworkRules {
  const rules: HostRule[] = [];
  let all = false;
  for (const entry of entries) {
    const text = entry.trim();
    if (text === "*") {
      all = true;
      continue;
    }
    const suffix = text.startsWith("*.");
    const split = splitHostPort(suffix ? text.slice(2) : text);
    const host = split && canonicalHost(split.host);
    if (!split || !host || (suffix && isIP(host))) continue;
    rules.push({ entry: text, host, suffix, port: split.port });
  }
  return { all, rules };
}

/**
 * The machine's loopback services the rules name with a port (`localhost:5432`, `127.0.0.1:6379`),
 * by port: a command's namespace has a loopback of its own, so these are brought into it
 * (_loopback_forward.ts). A loopback name without a port names no service to bring in.
 */
export function loopbackServices(rules: NetworkRules): { host: string; port: number }[] {
  const byPort = new Map<number, string>();
  for (const rule of rules.rules) {
    if (rule.suffix || rule.port === undefined) continue;
    if (rule.host !== "localhost" && rule.host !== "127.0.0.1") continue;
    // Both named for one port: localhost tries 127.0.0.1 first anyway.
    if (!byPort.has(rule.port) || rule.host === "localhost") byPort.set(rule.port, rule.host);
  }
  return [...byPort].sort(([a], [b]) => a - b).map(([port, host]) => ({ host, port }));
}

/** The rule that lets `host` (canonical) on `port` through, explicit ones first. */
export function matchHost(rules: NetworkRules, host: string, port: number): HostMatch | undefined {
  let found: HostMatch | undefined;
  for (const rule of rules.rules) {
    if (rule.port !== undefined && rule.port !== port) continue;
    if (!rule.suffix && rule.host === host) return { rule, explicit: true };
    if (rule.suffix && host.endsWith(`.${rule.host}`)) found ??= { rule, explicit: false };
  }
  return found;
}

/**
 * How a host and port is written in the setting when the person allows it: the name alone for
 * the web's ports (any port then), `name:port` otherwise; IPv6 in brackets with a port.
 */
export function entryFor(host: string, port: number): string {
  if (port === 443 || port === 80) return host;
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/** `host:port` as messages show it. */
export function shownTarget(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
