/**
 * The base protocol of the Language Server Protocol: `Content-Length: N\r\n\r\n` then N bytes of
 * JSON, both ways. The reader holds at most one message, bounded: a server that floods its
 * stdout or announces a huge message is cut off rather than let it grow toolhost's memory.
 */
import { Buffer } from "node:buffer";

/** The largest message accepted from a server (a project's workspace symbols fit easily). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** The longest header block accepted; real servers send one or two short lines. */
const MAX_HEADER_BYTES = 8 * 1024;

/** A message framed for a server's stdin. */
export function frame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]);
}

/**
 * Splits a server's stdout into messages. `push` returns the decoded messages the chunk
 * completed; a framing fault throws (the caller stops the server: its stream cannot be trusted).
 *
 * @example
 * const reader = new FrameReader();
 * reader.push(frame({ jsonrpc: "2.0", id: 1, result: null })); // [{ jsonrpc, id: 1, result: null }]
 */
export class FrameReader {
  #chunks: Buffer[] = [];
  #held = 0;
  /** The body length of the message being read, once its header is complete. */
  #length = -1;

  constructor(private readonly maxBytes = MAX_MESSAGE_BYTES) {}

  push(chunk: Uint8Array): unknown[] {
    this.#chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.#held += chunk.byteLength;
    const messages: unknown[] = [];
    for (;;) {
      if (this.#length < 0) {
        const all = this.#joined();
        const end = all.indexOf("\r\n\r\n");
        if (end < 0) {
          if (this.#held > MAX_HEADER_BYTES) {
            throw new Error(`a header longer than ${MAX_HEADER_BYTES} bytes (not the LSP framing)`);
          }
          return messages;
        }
        this.#length = contentLength(all.subarray(0, end).toString("ascii"), this.maxBytes);
        this.#keep(all.subarray(end + 4));
      }
      if (this.#held < this.#length) return messages;
      const all = this.#joined();
      const body = all.subarray(0, this.#length);
      this.#keep(all.subarray(this.#length));
      this.#length = -1;
      try {
        messages.push(JSON.parse(body.toString("utf8")));
      } catch {
        throw new Error("a message that is not JSON");
      }
    }
  }

  #joined(): Buffer {
    if (this.#chunks.length > 1) this.#chunks = [Buffer.concat(this.#chunks)];
    return this.#chunks[0] ?? Buffer.alloc(0);
  }

  #keep(rest: Buffer): void {
    this.#chunks = rest.length > 0 ? [rest] : [];
    this.#held = rest.length;
  }
}

function contentLength(header: string, maxBytes: number): number {
  for (const line of header.split("\r\n")) {
    const match = /^content-length:\s*(\d{1,12})\s*$/i.exec(line);
    if (!match) continue;
    const length = Number(match[1]);
    if (length > maxBytes) {
      throw new Error(`a message of ${length} bytes, over the ${maxBytes}-byte limit`);
    }
    return length;
  }
  throw new Error("a header without Content-Length");
}
