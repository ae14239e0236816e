/**
 * HTTP/1.1 as the sandbox's proxy reads and writes it: a request head (bounded), its target
 * (CONNECT's authority or a plain http request's absolute URL), the call's token from the proxy
 * credentials, the head sent on for a plain request, the length of a request body, and an
 * answer's head marked `Connection: close` (one request per connection: a second request on a
 * kept-alive connection would reach its host unchecked).
 */
import { Buffer } from "node:buffer";
import { canonicalHost, splitHostPort } from "./_proxy_rules.ts";

export interface RequestHead {
  method: string;
  /** As written: `host:port` for CONNECT, `http://…` otherwise. */
  target: string;
  version: string;
  headers: [string, string][];
}

/** A request the proxy cannot take; answered with `status` and the message. */
export class BadRequest extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const REQUEST_LINE = /^([A-Z]+) (\S+) (HTTP\/1\.[01])$/;
const HEADER = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;

/** Parses a head up to (not including) its blank line. */
export function parseHead(text: string): RequestHead {
  const lines = text.split("\r\n");
  const line = lines.shift()!.match(REQUEST_LINE);
  if (!line) throw new BadRequest(400, "the request line is not HTTP/1.1");
  const headers: [string, string][] = [];
  for (const raw of lines) {
    const header = raw.match(HEADER);
    // Folded lines and bare names are refused: proxies and hosts would read them differently.
    if (!header) throw new BadRequest(400, "a header line is malformed");
    headers.push([header[1], header[2]]);
  }
  return { method: line[1], target: line[2], version: line[3], headers };
}

export function header(head: RequestHead, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return head.headers.find(([key]) => key.toLowerCase() === wanted)?.[1];
}

/** The call's token: the user (or the password) of `Proxy-Authorization: Basic`. */
export function tokenOf(head: RequestHead): string[] {
  const value = header(head, "proxy-authorization")?.match(/^Basic\s+([A-Za-z0-9+/=]+)$/i);
  if (!value) return [];
  const decoded = Buffer.from(value[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? [decoded] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

export interface Destination {
  host: string;
  port: number;
  /** For a plain request: the path and query the host is asked for. */
  path?: string;
  /** For a plain request: `host[:port]` as the URL wrote it, for a missing Host header. */
  authority?: string;
}

/** Where the request goes: CONNECT's `host:port`, or an absolute `http://` URL. */
export function destinationOf(head: RequestHead): Destination {
  if (head.method === "CONNECT") {
    const split = splitHostPort(head.target);
    const host = split && canonicalHost(split.host);
    if (!split?.port || !host) {
      throw new BadRequest(400, `CONNECT needs host:port, not ${head.target.slice(0, 200)}`);
    }
    return { host, port: split.port };
  }
  if (!/^http:\/\//i.test(head.target)) {
    throw new BadRequest(
      400,
      /^https:\/\//i.test(head.target)
        ? "https goes through CONNECT; this proxy does not speak TLS for the client"
        : "this is a proxy: send the request's whole URL (http://host/path) or CONNECT",
    );
  }
  let url: URL;
  try {
    url = new URL(head.target);
  } catch {
    throw new BadRequest(400, "the request's URL is not valid");
  }
  if (url.username || url.password) {
    throw new BadRequest(400, "a URL with credentials in it is not forwarded");
  }
  const host = canonicalHost(url.hostname);
  if (!host) throw new BadRequest(400, "the request's URL names no host");
  return {
    host,
    port: Number(url.port || 80),
    path: `${url.pathname}${url.search}`,
    authority: url.host,
  };
}

/** Hop-by-hop headers, never passed on (Transfer-Encoding is, with the body it frames). */
const HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-authenticate",
  "proxy-connection",
  "te",
  "trailer",
  "upgrade",
]);

/**
 * The head sent on for a plain request: origin form to the host, or still absolute to the user's
 * proxy (with its own credentials); hop-by-hop headers dropped, `Connection: close` added.
 */
export function forwardedHead(
  head: RequestHead,
  destination: Destination,
  proxy?: { authorization?: string },
): string {
  const named = new Set(
    (header(head, "connection") ?? "").split(",").map((name) => name.trim().toLowerCase()),
  );
  const kept = head.headers.filter(([name]) => {
    const lower = name.toLowerCase();
    return !HOP.has(lower) && !named.has(lower);
  });
  if (!kept.some(([name]) => name.toLowerCase() === "host")) {
    kept.unshift(["Host", destination.authority!]);
  }
  if (proxy?.authorization) kept.push(["Proxy-Authorization", proxy.authorization]);
  kept.push(["Connection", "close"]);
  const target = proxy ? head.target : destination.path!;
  return `${head.method} ${target} ${head.version}\r\n` +
    kept.map(([name, value]) => `${name}: ${value}\r\n`).join("") + "\r\n";
}

/** How a request's body ends: a length, chunked framing, or none. */
export type BodyFraming = { length: number } | { chunked: true };

export function framingOf(head: RequestHead): BodyFraming {
  const encodings = head.headers.filter(([name]) => name.toLowerCase() === "transfer-encoding");
  const lengths = head.headers.filter(([name]) => name.toLowerCase() === "content-length");
  // Both, or two disagreeing lengths, is how requests are smuggled past a proxy.
  if (encodings.length > 0 && lengths.length > 0) {
    throw new BadRequest(400, "a request cannot have both Transfer-Encoding and Content-Length");
  }
  if (encodings.length > 0) {
    if (encodings.length > 1 || encodings[0][1].toLowerCase() !== "chunked") {
      throw new BadRequest(501, "only Transfer-Encoding: chunked is forwarded");
    }
    return { chunked: true };
  }
  if (lengths.length === 0) return { length: 0 };
  const values = new Set(lengths.flatMap(([, value]) => value.split(",").map((v) => v.trim())));
  const [only] = values;
  if (values.size !== 1 || !/^\d{1,15}$/.test(only)) {
    throw new BadRequest(400, "the request's Content-Length is not one number");
  }
  return { length: Number(only) };
}

/**
 * Follows a chunked body as it streams past, to know where it ends: `take(chunk)` says how many
 * bytes of the chunk still belong to the body (the rest is a next request, never forwarded).
 */
export class ChunkedEnd {
  #state: "size" | "data" | "data-end" | "trailer" = "size";
  #line = "";
  #left = 0;
  done = false;

  take(chunk: Uint8Array): number {
    let i = 0;
    while (i < chunk.length && !this.done) {
      if (this.#state === "data") {
        const n = Math.min(this.#left, chunk.length - i);
        i += n;
        this.#left -= n;
        if (this.#left === 0) this.#state = "data-end";
        continue;
      }
      const byte = chunk[i++];
      if (byte !== 10) {
        if (this.#line.length > 4096) throw new BadRequest(400, "a chunk's line is too long");
        this.#line += String.fromCharCode(byte);
        continue;
      }
      const line = this.#line.replace(/\r$/, "");
      this.#line = "";
      if (this.#state === "size") {
        const size = line.match(/^([0-9A-Fa-f]{1,12})(;.*)?$/);
        if (!size) throw new BadRequest(400, "a chunk's size is malformed");
        this.#left = parseInt(size[1], 16);
        this.#state = this.#left === 0 ? "trailer" : "data";
      } else if (this.#state === "data-end") {
        if (line !== "") throw new BadRequest(400, "a chunk does not end where its size says");
        this.#state = "size";
      } else if (line === "") {
        this.done = true;
      }
    }
    return i;
  }
}

/**
 * How an answer's body ends: none (HEAD, 204, 304), a length, chunks, or the host closing the
 * connection (`undefined`).
 */
export function responseFraming(text: string, method: string): BodyFraming | undefined {
  const status = Number(text.match(/^HTTP\/1\.[01] (\d{3})/)?.[1] ?? 0);
  if (method === "HEAD" || status === 204 || status === 304) return { length: 0 };
  const fields = text.split("\r\n").slice(1).map((line) => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
  });
  const encoding = fields.filter(([name]) => name === "transfer-encoding").map(([, v]) => v);
  if (encoding.length > 0) {
    return /(^|,)\s*chunked\s*$/i.test(encoding.join(",")) ? { chunked: true } : undefined;
  }
  const lengths = new Set(fields.filter(([name]) => name === "content-length").map(([, v]) => v));
  const [only] = lengths;
  return lengths.size === 1 && /^\d{1,15}$/.test(only) ? { length: Number(only) } : undefined;
}

/** Finds the end of a head (`\r\n\r\n`) in `buffer`; -1 while it has not come. */
export function headEnd(buffer: Buffer): number {
  return buffer.indexOf("\r\n\r\n");
}

/**
 * An answer's head as the client gets it: `Connection: close` in place of what the host said,
 * so the client opens a new connection (through the checks) for its next request.
 */
export function closingResponseHead(text: string): string {
  const [status, ...lines] = text.split("\r\n");
  const kept = lines.filter((line) => {
    const name = line.slice(0, line.indexOf(":")).trim().toLowerCase();
    return name !== "connection" && name !== "keep-alive" && name !== "proxy-connection";
  });
  return [status, ...kept, "Connection: close", "", ""].join("\r\n");
}

/** A short answer from the proxy itself. */
export function answer(status: number, reasonPhrase: string, body: string, extra = ""): string {
  const text = `${body}\n`;
  return `HTTP/1.1 ${status} ${reasonPhrase}\r\n${extra}Content-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
}
