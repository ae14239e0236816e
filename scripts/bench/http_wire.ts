/**
 * A minimal HTTP/1.1 client for the benchmark: one keep-alive TCP connection per caller, one
 * request at a time on it, requests written as prebuilt text. It costs the client a few
 * microseconds per request where fetch costs tens, so on a small machine the figures measure
 * the server rather than the client. It reads what these servers send: Content-Length or
 * chunked bodies, UTF-8 JSON.
 */
import { connect, type Socket } from "node:net";
import { Buffer } from "node:buffer";

export interface WireResponse {
  status: number;
  /** Header names in lower case. */
  headers: Map<string, string>;
  body: string;
}

const HEAD_END = Buffer.from("\r\n\r\n");

interface Waiting {
  resolve: (response: WireResponse) => void;
  reject: (error: Error) => void;
}

export class WireConnection {
  readonly #socket: Socket;
  readonly #ready: Promise<void>;
  #buffer: Buffer = Buffer.alloc(0);
  #waiting: Waiting | null = null;
  #failure: Error | null = null;

  constructor(readonly host: string, readonly port: number) {
    this.#socket = connect({ host, port, noDelay: true });
    this.#ready = new Promise((resolve, reject) => {
      this.#socket.once("connect", () => resolve());
      this.#socket.once("error", reject);
    });
    this.#socket.on("data", (chunk: Buffer) => {
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
      this.#parse();
    });
    this.#socket.on("error", (error) => this.#fail(error));
    this.#socket.on("close", () => this.#fail(new Error("the server closed the connection")));
  }

  /** False once the connection failed or the server closed it (node closes idle ones after 5 s). */
  get usable(): boolean {
    return this.#failure === null;
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    const waiting = this.#waiting;
    this.#waiting = null;
    waiting?.reject(this.#failure);
  }

  /**
   * Sends `head` (request line and headers, without the blank line) and `body`. With `holdMs`,
   * nothing is read for that long after sending, as a client that stops reading: the reply waits
   * in the server's buffers.
   */
  async request(head: string, body: string, holdMs = 0): Promise<WireResponse> {
    await this.#ready;
    if (this.#failure) throw this.#failure;
    if (this.#waiting) throw new Error("one request at a time per connection");
    const replied = new Promise<WireResponse>((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
    if (holdMs > 0) {
      this.#socket.pause();
      setTimeout(() => this.#socket.resume(), holdMs);
    }
    this.#socket.write(`${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    return await replied;
  }

  #parse(): void {
    if (!this.#waiting) return;
    const end = this.#buffer.indexOf(HEAD_END);
    if (end === -1) return;
    const lines = this.#buffer.toString("latin1", 0, end).split("\r\n");
    const status = Number(lines[0].split(" ")[1]);
    const headers = new Map<string, string>();
    for (let i = 1; i < lines.length; i++) {
      const colon = lines[i].indexOf(":");
      headers.set(lines[i].slice(0, colon).toLowerCase(), lines[i].slice(colon + 1).trim());
    }
    const start = end + HEAD_END.length;
    let body: string;
    let consumed: number;
    const length = headers.get("content-length");
    if (length !== undefined) {
      consumed = start + Number(length);
      if (this.#buffer.length < consumed) return;
      body = this.#buffer.toString("utf8", start, consumed);
    } else if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) {
      const chunked = dechunk(this.#buffer, start);
      if (!chunked) return;
      ({ body, consumed } = chunked);
    } else if (status === 204 || status === 304) {
      body = "";
      consumed = start;
    } else {
      this.#fail(new Error(`a reply (HTTP ${status}) with neither length nor chunks`));
      return;
    }
    this.#buffer = this.#buffer.subarray(consumed);
    const waiting = this.#waiting;
    this.#waiting = null;
    waiting.resolve({ status, headers, body });
  }

  close(): void {
    this.#failure ??= new Error("closed");
    this.#socket.destroy();
  }
}

/** A complete chunked body from `start`, or undefined while some of it has yet to arrive. */
function dechunk(buffer: Buffer, start: number): { body: string; consumed: number } | undefined {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = buffer.indexOf("\r\n", at);
    if (lineEnd === -1) return undefined;
    const size = parseInt(buffer.toString("latin1", at, lineEnd), 16);
    const dataStart = lineEnd + 2;
    if (size === 0) {
      // No trailers from these servers: the last chunk is followed by one empty line.
      if (buffer.length < dataStart + 2) return undefined;
      return { body: Buffer.concat(parts).toString("utf8"), consumed: dataStart + 2 };
    }
    if (buffer.length < dataStart + size + 2) return undefined;
    parts.push(buffer.subarray(dataStart, dataStart + size));
    at = dataStart + size + 2;
  }
}
