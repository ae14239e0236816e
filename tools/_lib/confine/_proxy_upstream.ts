/**
 * Where the sandbox's proxy sends a request it let through: the host's addresses, resolved once
 * and checked by the private-network guard (the connection then goes to an address that was
 * checked, so the name cannot be rebound in between), or the user's own proxy when they have one
 * (which resolves names itself, so only the host as written can be checked).
 */
import { Buffer } from "node:buffer";
import { lookup } from "node:dns/promises";
import { connect as netConnect, isIP, type Socket } from "node:net";
import { hostAsWrittenKind, privateAddressKind } from "../net/net_guard.ts";
import { isUsable, type Proxy, proxyFor, type ProxyRules } from "../net/user_proxy.ts";
import { shownTarget } from "./_proxy_rules.ts";

/** The request cannot go there; recorded for the call and answered 403. */
export class Refused extends Error {}

/** The host could not be reached (a name that does not resolve, nothing listening); 502. */
export class Unreachable extends Error {}

/** A host and port, checked, and how to reach it. */
export interface Target {
  host: string;
  port: number;
  /** The addresses to try, in order, each checked; empty when going through `via`. */
  addresses: string[];
  /** The user's proxy this goes through. */
  via?: Proxy;
}

const LOOKUP_MS = 10_000;
const CONNECT_MS = 15_000;
/** Longest answer to our CONNECT read from the user's proxy. */
const HEAD_BYTES = 16 * 1024;

/** How a host name is looked up: every address of it. A test gives a table. */
export type Lookup = (host: string) => Promise<string[]>;

export interface ResolveOptions {
  /** False for hosts the setting names itself: the private-network guard does not apply. */
  guard: boolean;
  /** The user's own proxies (the `proxy` setting, HTTPS_PROXY…), if any. */
  userProxies?: ProxyRules;
  /** Which of the user's proxies applies, as for a URL of this scheme (CONNECT: https). */
  scheme: "http" | "https";
  lookup?: Lookup;
}

const systemLookup: Lookup = async (host) =>
  (await lookup(host, { all: true })).map(({ address }) => address);

/** Resolves and checks `host` (canonical) on `port`. */
export async function resolveTarget(
  host: string,
  port: number,
  { guard, userProxies, scheme, lookup: lookupAll = systemLookup }: ResolveOptions,
): Promise<Target> {
  const literal = isIP(host) === 6 ? `[${host}]` : host;
  // This machine's loopback is never the user's proxy's to reach (it has a loopback of its own).
  const loopback = /(^|\.)localhost$/.test(host) || privateAddressKind(host) === "loopback";
  const via = loopback
    ? undefined
    : proxyFor(new URL(`${scheme}://${literal}:${port}/`), userProxies);
  if (via && !isUsable(via)) throw new Unreachable(via.refusal);
  if (via) {
    const kind = guard ? hostAsWrittenKind(host) : undefined;
    if (kind) throw new Refused(`${host} is ${kind}`);
    return { host, port, addresses: [], via };
  }
  if (isIP(host)) {
    const kind = guard ? privateAddressKind(host) : undefined;
    if (kind) throw new Refused(`${host} is ${kind}`);
    return { host, port, addresses: [host] };
  }
  let found: string[];
  try {
    found = await withTimeout(lookupAll(host), LOOKUP_MS, `no answer in ${LOOKUP_MS / 1000} s`);
  } catch (error) {
    throw new Unreachable(`the name ${host} could not be resolved (${reason(error)})`);
  }
  if (found.length === 0) throw new Unreachable(`the name ${host} has no address`);
  if (guard) {
    // Every address: a round-robin answer must not smuggle a private one in.
    for (const address of found) {
      const kind = privateAddressKind(address);
      if (kind) throw new Refused(`${host} resolves to ${address}, ${kind}`);
    }
  }
  return { host, port, addresses: found };
}

/** An open connection toward the target, and how a plain http request must be written on it. */
export interface Upstream {
  socket: Socket;
  /** Through the user's proxy: the request keeps its absolute form and carries this. */
  proxy?: { authorization?: string };
}

/**
 * Connects to the target: a tunnel (`tunnel` true, for CONNECT; through the user's proxy, a
 * CONNECT of our own), or for one plain http request, the user's proxy itself.
 */
export async function connectTarget(target: Target, tunnel: boolean): Promise<Upstream> {
  const { via } = target;
  if (!via) return { socket: await connectDirect(target) };
  const socket = await connectProxy(via);
  if (!tunnel) return { socket, proxy: { authorization: via.authorization } };
  try {
    await askTunnel(socket, via, shownTarget(target.host, target.port));
  } catch (error) {
    socket.destroy();
    throw error;
  }
  return { socket };
}

async function connectDirect(target: Target): Promise<Socket> {
  let last: unknown;
  for (const address of target.addresses) {
    try {
      return await open(() => netConnect({ host: address, port: target.port }), "connect");
    } catch (error) {
      last = error;
    }
  }
  const where = shownTarget(target.host, target.port);
  throw new Unreachable(`${where} could not be reached (${reason(last)})`);
}

async function connectProxy(proxy: Proxy): Promise<Socket> {
  const host = proxy.url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(proxy.url.port || (proxy.url.protocol === "https:" ? 443 : 80));
  try {
    if (proxy.url.protocol === "https:") {
      const servername = isIP(host) ? undefined : host;
      // node:tls is loaded only for a user's https proxy.
      const { connect: tlsConnect } = await import("node:tls");
      return await open(() => tlsConnect({ host, port, servername }), "secureConnect");
    }
    return await open(() => netConnect({ host, port }), "connect");
  } catch (error) {
    throw new Unreachable(
      `the proxy ${proxy.url.origin} (${proxy.from}) could not be reached (${reason(error)})`,
    );
  }
}

function open(make: () => Socket, ready: "connect" | "secureConnect"): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = make();
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no connection within ${CONNECT_MS / 1000} s`));
    }, CONNECT_MS);
    socket.once(ready, () => {
      clearTimeout(timer);
      socket.off("error", fail);
      resolve(socket);
    });
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    socket.once("error", fail);
  });
}

/** Our CONNECT to the user's proxy; resolves once it answered 2xx. */
function askTunnel(socket: Socket, proxy: Proxy, target: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let head: Buffer = Buffer.alloc(0);
    const timer = setTimeout(
      () => done(new Error(`no answer in ${CONNECT_MS / 1000} s`)),
      CONNECT_MS,
    );
    const done = (error?: Error) => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("error", done);
      socket.off("close", onClose);
      if (!error) return resolve();
      reject(
        error instanceof Unreachable ? error : new Unreachable(
          `the proxy ${proxy.url.origin} (${proxy.from}) failed: ${error.message}`,
        ),
      );
    };
    const onClose = () => done(new Error("it closed the connection"));
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > HEAD_BYTES) done(new Error("its answer to CONNECT was not HTTP"));
        return;
      }
      const status = head.subarray(0, end).toString("latin1").split("\r\n")[0];
      const code = Number(status.match(/^HTTP\/1\.[01] (\d{3})/)?.[1] ?? 0);
      if (code < 200 || code > 299) {
        return done(
          new Unreachable(
            `the proxy ${proxy.url.origin} (${proxy.from}) did not open a tunnel to ${target}: ${
              code === 407
                ? "it asks for credentials (HTTP 407)"
                : `it answered ${status.slice(0, 80)}`
            }`,
          ),
        );
      }
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      done();
    };
    socket.on("data", onData);
    socket.once("error", done);
    socket.once("close", onClose);
    const auth = proxy.authorization ? `Proxy-Authorization: ${proxy.authorization}\r\n` : "";
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth}\r\n`);
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number, why: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((
    _,
    reject,
  ) => (timer = setTimeout(() => reject(new Error(why)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function reason(error: unknown): string {
  const { code, message } = (error ?? {}) as NodeJS.ErrnoException;
  if (code === "ECONNREFUSED") return "nothing is listening there";
  return code ?? message ?? String(error);
}
