/**
 * GET over node:http(s) for the web tools: redirects followed by hand so every hop passes the
 * private-network guard, one deadline for the whole exchange, gzip/deflate/br decoded, and a cap
 * on the decoded body so a huge or endless response costs at most `maxBytes`.
 */
import { Buffer } from "node:buffer";
import type { IncomingMessage } from "node:http";
import { isIP, type Socket } from "node:net";
import type { Readable } from "node:stream";
import { BodyBytes } from "./body_bytes.ts";
import { decodeText } from "./charset.ts";
import {
  guardedLookup,
  GuardError,
  privateAddressKind,
  refusal,
} from "../../../_lib/net/net_guard.ts";
import {
  defaultPort,
  isUsable,
  type Proxy,
  proxyFor,
  proxyHostRefusal,
  type ProxyRules,
} from "../../../_lib/net/user_proxy.ts";
import { quoted } from "../../../../config/quote.ts";
import { bytes } from "../../../_lib/text/units.ts";

export interface HttpGetOptions {
  signal?: AbortSignal;
  /** The whole exchange, redirects included. */
  timeoutMs: number;
  /** Cap on the decoded body; beyond it reading stops and `truncated` is set. */
  maxBytes: number;
  headers?: Record<string, string>;
  /** Whether private-network addresses may be reached: the allow_private_network setting. */
  allowPrivateNetwork: boolean;
  /**
   * Overrides allowPrivateNetwork for the first URL's origin only (an endpoint the user
   * configured): a redirect elsewhere falls back to the setting.
   */
  allowPrivate?: boolean;
  /** Default 5; each hop is checked again. */
  maxRedirects?: number;
  /** The user's proxies (proxyRules()); each hop picks its own or goes direct. */
  proxy?: ProxyRules;
  /** Certificates to trust besides the system's (tests). */
  ca?: string;
  /** Accept-Encoding for every hop (default gzip, deflate, br). */
  acceptEncoding?: string;
}

export interface HttpResponse {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Uint8Array;
  truncated: boolean;
  /** Each URL a redirect led to, in order. */
  redirects: string[];
}

/** A failure told as a sentence the model can act on. */
export class HttpError extends Error {}

/** The deadline passed; callers add how their user can allow more time. */
export class HttpTimeoutError extends HttpError {}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * node:http, node:https and node:zlib, loaded on the first download: the binary's runtime sets
 * them up when they are imported, which cost every start about 6 MB and a few milliseconds.
 */
type NodeModules = {
  http: typeof import("node:http");
  https: typeof import("node:https");
  zlib: typeof import("node:zlib");
  net: typeof import("node:net");
  tls: typeof import("node:tls");
};
let nodeModules: Promise<NodeModules> | undefined;

function loadNodeModules(): Promise<NodeModules> {
  nodeModules ??= Promise.all([
    import("node:http"),
    import("node:https"),
    import("node:zlib"),
    import("node:net"),
    import("node:tls"),
  ]).then(([http, https, zlib, net, tls]) => ({ http, https, zlib, net, tls }));
  return nodeModules;
}
export const USER_AGENT =
  "Mozilla/5.0 (compatible; toolhost/0.1; +https://modelcontextprotocol.io)";

/** Checks a URL before any connection: scheme, and an address literal against the guard. */
export function checkUrl(url: URL, allowPrivate: boolean): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new HttpError(`Only http and https URLs can be fetched, not ${quoted(url.protocol)}.`);
  }
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) {
    const kind = privateAddressKind(host);
    if (kind) throw new HttpError(refusal(host, host, kind));
  }
}

export async function httpGet(url: string, options: HttpGetOptions): Promise<HttpResponse> {
  const modules = await loadNodeModules();
  const { zlib } = modules;
  const maxRedirects = options.maxRedirects ?? 5;
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const redirects: string[] = [];
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new HttpError(`${quoted(url)} is not a valid URL.`);
  }
  const origin = current.origin;
  for (;;) {
    // What the caller vouched for (a configured endpoint, its credentials) stays with its origin.
    const sameOrigin = current.origin === origin;
    const allowPrivate = (sameOrigin ? options.allowPrivate : undefined) ??
      options.allowPrivateNetwork;
    const headers = sameOrigin ? options.headers : undefined;
    let response: IncomingMessage;
    try {
      checkUrl(current, allowPrivate);
      const proxy = proxyFor(current, options.proxy);
      if (proxy && !isUsable(proxy)) throw new HttpError(proxy.refusal);
      const refused = proxy && !allowPrivate ? proxyHostRefusal(current) : undefined;
      if (refused) throw new HttpError(refused);
      response = await send(modules, current, { ...options, headers }, allowPrivate, signal, proxy);
      if (proxy && response.statusCode === 407) {
        response.destroy();
        throw new HttpError(
          `The proxy ${proxy.url.origin} (${proxy.from}) asks for credentials (HTTP 407); ` +
            "the user can put them in the proxy's address (http://user:password@host:port).",
        );
      }
    } catch (error) {
      if (redirects.length === 0 || !(error instanceof HttpError)) throw error;
      throw new HttpError(`${url} redirected to ${current.href}, which failed: ${error.message}`);
    }
    const location = response.headers.location;
    if (REDIRECTS.has(response.statusCode ?? 0) && location) {
      response.destroy();
      if (redirects.length >= maxRedirects) {
        throw new HttpError(
          `${url} redirected more than ${maxRedirects} times (last to ${current.href}); ` +
            "the page may be stuck in a redirect loop.",
        );
      }
      try {
        current = new URL(location, current);
      } catch {
        throw new HttpError(`${current.href} redirected to an invalid URL: ${quoted(location)}.`);
      }
      redirects.push(current.href);
      continue;
    }
    const { body, truncated } = await readBody(zlib, response, options, signal, current);
    return {
      url: current.href,
      status: response.statusCode ?? 0,
      headers: flatHeaders(response),
      body,
      truncated,
      redirects,
    };
  }
}

/**
 * One GET: directly (the connection goes to the address the guard checked), through an http
 * proxy in absolute form, or for https through a CONNECT tunnel with TLS to the host inside it.
 */
async function send(
  modules: NodeModules,
  url: URL,
  options: HttpGetOptions,
  allowPrivate: boolean,
  signal: AbortSignal,
  proxy?: Proxy,
): Promise<IncomingMessage> {
  const { http, https, tls } = modules;
  const headers: Record<string, string> = {
    "user-agent": USER_AGENT,
    "accept": "text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8",
    "accept-encoding": options.acceptEncoding ?? "gzip, deflate, br",
    ...options.headers,
  };
  const ca = options.ca ? { ca: options.ca } : {};
  // A fresh connection each time: a pooled one would skip the guard's lookup.
  let request: () => import("node:http").ClientRequest;
  if (!proxy) {
    const get = url.protocol === "https:" ? https.request : http.request;
    request = () =>
      get(url, {
        method: "GET",
        headers,
        agent: false,
        ...ca,
        ...(allowPrivate ? {} : { lookup: guardedLookup }),
      });
  } else if (url.protocol === "http:") {
    const get = proxy.url.protocol === "https:" ? https.request : http.request;
    request = () =>
      get({
        host: bare(proxy.url.hostname),
        port: proxy.url.port || defaultPort(proxy.url),
        path: url.href,
        method: "GET",
        headers: {
          host: url.host,
          ...headers,
          ...(proxy.authorization ? { "proxy-authorization": proxy.authorization } : {}),
        },
        agent: false,
        ...ca,
      });
  } else {
    const tunnel = await openTunnel(modules, proxy, url, signal, options);
    const host = bare(url.hostname);
    const secure = tls.connect({
      socket: tunnel,
      host,
      ...(isIP(host) ? {} : { servername: host }),
      ALPNProtocols: ["http/1.1"],
      ...ca,
    });
    // An agent of its own whose only connection is the tunnel (Deno and Bun ignore a
    // createConnection option given with agent: false).
    const agent = new https.Agent({ keepAlive: false });
    agent.createConnection = () => secure;
    request = () => https.request(url, { method: "GET", headers, agent });
  }
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError(url, signal, options.timeoutMs));
    const req = request();
    // Rejects itself: not every runtime emits "error" for a request destroyed before its answer.
    const onAbort = () => {
      reject(abortError(url, signal, options.timeoutMs));
      req.destroy();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    req.once("response", (response) => {
      signal.removeEventListener("abort", onAbort);
      resolve(response);
    });
    req.once("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(
        proxy && url.protocol === "http:" && isConnectError(error)
          ? proxyError(error, proxy)
          : explain(error, url, signal, options.timeoutMs),
      );
    });
    req.end();
  });
}

const bare = (host: string) => host.replace(/^\[|\]$/g, "");

const CONNECT_ERRORS = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH"]);

function isConnectError(error: unknown): boolean {
  return CONNECT_ERRORS.has((error as NodeJS.ErrnoException).code ?? "");
}

/** A failure to reach the proxy itself, named as such (its address never with credentials). */
function proxyError(error: unknown, proxy: Proxy): HttpError {
  const { code, message } = error as NodeJS.ErrnoException;
  return new HttpError(
    `The proxy ${proxy.url.origin} (${proxy.from}) could not be reached: ${
      code === "ECONNREFUSED" ? "nothing is listening there" : message
    }${
      code ? ` (${code})` : ""
    }. Check the proxy setting, or NO_PROXY for hosts to reach directly.`,
  );
}

/** Longest answer to CONNECT read before giving up on it. */
const CONNECT_HEAD_BYTES = 16 * 1024;

/** Asks `proxy` for a tunnel to `url`'s host and port; resolves with the open tunnel. */
function openTunnel(
  { net, tls }: NodeModules,
  proxy: Proxy,
  url: URL,
  signal: AbortSignal,
  options: HttpGetOptions,
): Promise<Socket> {
  const target = `${url.hostname}:${defaultPort(url)}`;
  const host = bare(proxy.url.hostname);
  const port = Number(proxy.url.port || defaultPort(proxy.url));
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError(url, signal, options.timeoutMs));
    const socket: Socket = proxy.url.protocol === "https:"
      ? tls.connect({
        host,
        port,
        ...(isIP(host) ? {} : { servername: host }),
        ...(options.ca ? { ca: options.ca } : {}),
      })
      : net.connect({ host, port });
    let head = Buffer.alloc(0);
    const done = (error?: Error) => {
      signal.removeEventListener("abort", onAbort);
      socket.off("data", onData);
      socket.off("error", onError);
      if (error) {
        socket.destroy();
        reject(error);
      } else resolve(socket);
    };
    const onAbort = () => done(abortError(url, signal, options.timeoutMs));
    const onError = (error: Error) =>
      done(signal.aborted ? abortError(url, signal, options.timeoutMs) : proxyError(error, proxy));
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > CONNECT_HEAD_BYTES) {
          done(new HttpError(`The proxy ${proxy.url.origin} sent no readable answer to CONNECT.`));
        }
        return;
      }
      const status = head.subarray(0, end).toString("latin1").split("\r\n")[0];
      const code = Number(status.match(/^HTTP\/1\.[01] (\d{3})/)?.[1] ?? 0);
      if (code < 200 || code > 299) {
        const why = code === 407
          ? "it asks for credentials (HTTP 407); the user can put them in the proxy's address " +
            "(http://user:password@host:port)"
          : code
          ? `it answered ${quoted(status.slice(9, 120))}`
          : "its answer was not HTTP";
        return done(
          new HttpError(
            `The proxy ${proxy.url.origin} (${proxy.from}) did not open a tunnel to ${target}: ` +
              `${why}.`,
          ),
        );
      }
      const rest = head.subarray(end + 4);
      if (rest.length) socket.unshift(rest);
      done();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    socket.on("error", onError);
    socket.on("data", onData);
    socket.once(proxy.url.protocol === "https:" ? "secureConnect" : "connect", () => {
      const auth = proxy.authorization ? `Proxy-Authorization: ${proxy.authorization}\r\n` : "";
      socket.write(
        `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth}User-Agent: ${USER_AGENT}\r\n\r\n`,
      );
    });
  });
}

/** Reads the body, decoded, up to `maxBytes`; a longer one is cut there and marked. */
function readBody(
  zlib: typeof import("node:zlib"),
  response: IncomingMessage,
  { maxBytes, timeoutMs }: HttpGetOptions,
  signal: AbortSignal,
  url: URL,
): Promise<{ body: Uint8Array; truncated: boolean }> {
  const encoding = String(response.headers["content-encoding"] ?? "").trim().toLowerCase();
  let stream: Readable = response;
  if (encoding === "gzip" || encoding === "x-gzip" || encoding === "deflate") {
    stream = response.pipe(zlib.createUnzip());
  } else if (encoding === "br") {
    stream = response.pipe(zlib.createBrotliDecompress());
  } else if (encoding !== "" && encoding !== "identity") {
    response.destroy();
    return Promise.reject(
      new HttpError(
        `${url.href} sent its body encoded as ${quoted(encoding)}; only gzip, deflate and br ` +
          "(one at a time) can be decoded.",
      ),
    );
  }
  // Without an encoding the declared length is the body's: one array of that size up front.
  const declared = stream === response ? Number(response.headers["content-length"]) : NaN;
  const kept = new BodyBytes(
    Number.isSafeInteger(declared) && declared >= 0 ? declared : -1,
    maxBytes,
  );
  return new Promise((resolve, reject) => {
    let size = 0;
    let received = 0;
    response.on("data", (chunk: Uint8Array) => (received += chunk.length));
    let done = false;
    const finish = (truncated: boolean) => {
      if (done) return;
      done = true;
      signal.removeEventListener("abort", onAbort);
      const body = kept.bytes();
      if (truncated) {
        response.destroy();
        if (stream !== response) stream.destroy();
      }
      resolve({ body, truncated });
    };
    const fail = (error: unknown) => {
      if (done) return;
      done = true;
      signal.removeEventListener("abort", onAbort);
      response.destroy();
      if (stream !== response) stream.destroy();
      reject(error);
    };
    const onAbort = () => fail(abortError(url, signal, timeoutMs, received));
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) return onAbort();
    stream.on("data", (chunk: Uint8Array) => {
      kept.add(chunk);
      size += chunk.length;
      if (size > maxBytes) finish(true);
    });
    stream.once("end", () => finish(false));
    stream.once("error", (error) =>
      // An empty body declared as compressed is just empty.
      received === 0 ? finish(false) : fail(
        new HttpError(
          `The response from ${url.href} could not be read` +
            (stream === response ? "" : ` (its ${encoding} encoding is broken)`) +
            `: ${error.message}`,
        ),
      ));
    response.once("aborted", () => fail(new HttpError(`${url.href} closed the connection early.`)));
  });
}

function flatHeaders(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function abortError(url: URL, signal: AbortSignal, timeoutMs: number, received = 0): Error {
  const reason = signal.reason as Error | undefined;
  if (reason?.name === "TimeoutError") {
    return new HttpTimeoutError(
      received > 0
        ? `${url.href} started answering but sent only ${bytes(received)} within ${timeoutMs} ms.`
        : `${url.href} did not answer within ${timeoutMs} ms.`,
    );
  }
  return reason instanceof Error
    ? reason
    : new DOMException("The fetch was cancelled", "AbortError");
}

/** A network error as a sentence: what failed, for which host, what to do. */
function explain(error: unknown, url: URL, signal: AbortSignal, timeoutMs: number): Error {
  if (signal.aborted) return abortError(url, signal, timeoutMs);
  if (error instanceof HttpError) return error;
  if (error instanceof GuardError) return new HttpError(error.message);
  const { code, message } = error as NodeJS.ErrnoException;
  const host = url.host;
  switch (code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new HttpError(
        `The name ${url.hostname} could not be resolved (${code}); check the URL.`,
      );
    case "ECONNREFUSED":
      return new HttpError(`${host} refused the connection; nothing is listening there.`);
    case "ECONNRESET":
      return new HttpError(`${host} reset the connection before answering.`);
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return new HttpError(`${host} cannot be reached from this machine (${code}).`);
  }
  if (code?.startsWith("ERR_TLS") || /certificate|self.signed|SSL/i.test(message)) {
    return new HttpError(`The TLS connection to ${host} failed: ${message}.`);
  }
  return new HttpError(`Fetching ${url.href} failed: ${message}${code ? ` (${code})` : ""}.`);
}

/** The body as text, in the charset its headers, BOM or markup declare. */
export function decodeBody(response: HttpResponse): string {
  return decodeText(response.body, response.headers["content-type"]);
}
