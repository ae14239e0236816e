/**
 * The user's own proxy, for the web tools and for the proxy commands go through: the `proxy`
 * setting, else HTTPS_PROXY / HTTP_PROXY / ALL_PROXY (lower case first, as curl reads them), with
 * NO_PROXY saying which hosts go direct. Only http and https proxies are spoken; a SOCKS proxy is
 * refused with a sentence, never bypassed. Through a proxy the proxy resolves names, so the
 * private-network guard can only judge the host as the URL writes it (proxyHostRefusal).
 */
import { Buffer } from "node:buffer";
import { isIP } from "node:net";
import process from "node:process";
import type { Settings } from "../../../config/settings.ts";
import { hostAsWrittenKind } from "./net_guard.ts";

export interface Proxy {
  /** The proxy's own address: http: or https:, no credentials, no path. */
  url: URL;
  /** `Basic …` for Proxy-Authorization, from the proxy URL's user and password. */
  authorization?: string;
  /** Where it was set, for messages: "the proxy setting", "HTTPS_PROXY". */
  from: string;
}

/** A proxy that cannot be used: every request that would go through it is refused with this. */
export interface UnusableProxy {
  refusal: string;
}

export interface ProxyRules {
  http?: Proxy | UnusableProxy;
  https?: Proxy | UnusableProxy;
  /** NO_PROXY's entries, lower case. */
  noProxy: NoProxyEntry[];
}

export interface NoProxyEntry {
  /** Without a leading `.` or `*.`; "*" matches every host. */
  host: string;
  port?: string;
  /** An address range (a.b.c.d/n), for IPv4 entries written with a prefix length. */
  cidr?: { start: number; size: number };
}

type Env = Record<string, string | undefined>;

function variable(env: Env, name: string): { name: string; value: string } | undefined {
  for (const candidate of [name.toLowerCase(), name.toUpperCase()]) {
    // HTTP_PROXY in upper case can come from a client's `Proxy:` header under CGI (httpoxy).
    if (candidate === "HTTP_PROXY" && env.REQUEST_METHOD) continue;
    const value = env[candidate]?.trim();
    if (value) return { name: candidate, value };
  }
  return undefined;
}

/** A proxy URL as written (scheme optional: http) into what requests use. */
export function parseProxy(text: string, from: string): Proxy | UnusableProxy {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    return { refusal: `${from} is not a valid proxy address; fix or unset it.` };
  }
  const shown = `${url.protocol}//${url.host}`;
  if (/^socks/.test(url.protocol)) {
    return {
      refusal: `${from} names a SOCKS proxy (${shown}), and toolhost speaks only http and ` +
        "https proxies, so the request was not sent (neither through it nor around it). " +
        "The user can set the proxy setting or HTTPS_PROXY to an http proxy, or add the " +
        "host to NO_PROXY.",
    };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { refusal: `${from} uses ${url.protocol}, which is not an http or https proxy.` };
  }
  const proxy: Proxy = { url: new URL(`${url.protocol}//${url.host}`), from };
  if (url.username || url.password) {
    const user = decoded(url.username);
    const password = decoded(url.password);
    proxy.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  }
  return proxy;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function parseNoProxy(text: string): NoProxyEntry[] {
  const entries: NoProxyEntry[] = [];
  for (let item of text.toLowerCase().split(/[\s,]+/)) {
    if (!item) continue;
    if (item === "*") {
      entries.push({ host: "*" });
      continue;
    }
    const cidr = item.match(/^(\d+\.\d+\.\d+\.\d+)\/(\d{1,2})$/);
    if (cidr && isIP(cidr[1]) === 4 && Number(cidr[2]) <= 32) {
      const size = 2 ** (32 - Number(cidr[2]));
      const start = Math.floor(v4(cidr[1]) / size) * size;
      entries.push({ host: cidr[1], cidr: { start, size } });
      continue;
    }
    let port: string | undefined;
    const bracketed = item.match(/^\[([^\]]+)\](?::(\d+))?$/);
    if (bracketed) {
      item = bracketed[1];
      port = bracketed[2];
    } else if (isIP(item) !== 6) {
      const withPort = item.match(/^(.*):(\d+)$/);
      if (withPort) [, item, port] = withPort;
    }
    const host = item.replace(/^\*?\./, "").replace(/\.$/, "");
    if (host) entries.push({ host, port });
  }
  return entries;
}

function v4(address: string): number {
  return address.split(".").reduce((sum, part) => sum * 256 + Number(part), 0);
}

/**
 * The rules in force: the `proxy` setting (for both schemes) wins over the variables; a scheme's
 * own variable wins over ALL_PROXY.
 */
export function proxyRules(setting: string | undefined, env: Env): ProxyRules {
  const noProxy = parseNoProxy(variable(env, "no_proxy")?.value ?? "");
  if (setting?.trim()) {
    const proxy = parseProxy(setting.trim(), "the proxy setting");
    return { http: proxy, https: proxy, noProxy };
  }
  const all = variable(env, "all_proxy");
  const pick = (name: string) => {
    const found = variable(env, name) ?? all;
    return found ? parseProxy(found.value, found.name) : undefined;
  };
  return { http: pick("http_proxy"), https: pick("https_proxy"), noProxy };
}

/** The rules a call works with: its settings, and the environment as it is now. */
export function proxyRulesOf(config: Readonly<Pick<Settings, "proxy">>): ProxyRules {
  return proxyRules(config.proxy, process.env);
}

export function defaultPort(url: URL): string {
  return url.port || (url.protocol === "https:" ? "443" : "80");
}

/** Whether NO_PROXY sends `url` direct. */
export function bypassesProxy(url: URL, entries: NoProxyEntry[]): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  const port = defaultPort(url);
  return entries.some((entry) => {
    if (entry.host === "*") return true;
    if (entry.port && entry.port !== port) return false;
    if (entry.cidr) {
      return isIP(host) === 4 && v4(host) >= entry.cidr.start &&
        v4(host) < entry.cidr.start + entry.cidr.size;
    }
    return host === entry.host || host.endsWith(`.${entry.host}`);
  });
}

/** The proxy `url` goes through, a refusal, or undefined to connect directly. */
export function proxyFor(
  url: URL,
  rules: ProxyRules | undefined,
): Proxy | UnusableProxy | undefined {
  if (!rules) return undefined;
  const proxy = url.protocol === "https:" ? rules.https : rules.http;
  if (!proxy || bypassesProxy(url, rules.noProxy)) return undefined;
  return proxy;
}

/**
 * The guard through a proxy, which resolves names itself: an address literal is judged as the
 * guard judges addresses, and names that can only mean a local network (localhost, *.local,
 * *.internal, one-label names) are refused. Undefined lets the request through.
 */
export function proxyHostRefusal(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  const kind = hostAsWrittenKind(host);
  return kind ? refusalThroughProxy(host, kind) : undefined;
}

function refusalThroughProxy(host: string, kind: string): string {
  return `${host} is ${kind}, and fetching private-network addresses is off (through the ` +
    "proxy only the host as written can be checked). The user can allow it by starting " +
    "toolhost with --allow-private-network.";
}

/** Whether a rule is a usable proxy or a refusal. */
export function isUsable(proxy: Proxy | UnusableProxy): proxy is Proxy {
  return "url" in proxy;
}
