/**
 * The stdio transport: stdin → lines → decoded messages → connection, never reading further
 * ahead of the answers than read_ahead.ts allows, and one ordered writer to stdout that respects
 * backpressure, so replies of any size arrive whole and in order through a pipe.
 */
import type { Readable, Writable } from "node:stream";
import { setImmediate } from "node:timers";
import type { McpConnection } from "../server/connection.ts";
import {
  decodeLine,
  failure,
  INVALID_REQUEST,
  type JsonRpcMessage,
  type JsonRpcResponse,
  peekTopLevelId,
} from "../wire/jsonrpc.ts";
import { heapPressure } from "../wire/heap_pressure.ts";
import { type Line, LineSplitter, OversizedLine } from "./lines.ts";
import { ReadAhead } from "../server/read_ahead.ts";
import type { Transport } from "../server/transport.ts";

/** Characters handed to one write() call at most; larger queues go out in several. */
const WRITE_CHUNK = 1 << 20;
/** Characters writeQueued() writes at once at most: a pipe's buffer. */
const WRITE_AT_ONCE = 64 << 10;
/**
 * What the running average of message sizes starts from, before any is sent: large, so a burst
 * of large replies at start-up is not started hundreds at once before their size is known.
 */
const FIRST_AVERAGE_CHARS = 8 << 10;

/** The stdio transport's way out: what connect() is given for a stdio connection. */
export class StdoutWriter implements Transport {
  #queue: string[] = [];
  #backlog = 0;
  #pumping = false;
  /** A pump is set for after this turn's I/O callbacks. */
  #scheduled = false;
  #broken = false;
  #waiters: (() => void)[] = [];
  #averageChars = FIRST_AVERAGE_CHARS;

  /** `onBroken` runs once if the reader goes away (EPIPE and the like). */
  constructor(readonly out: Writable, readonly onBroken: (error: unknown) => void) {
    out.on("error", (error) => this.#break(error));
  }

  /** Characters queued whose write has not completed yet. */
  get backlog(): number {
    return this.#backlog;
  }

  /** A running average of the sizes of the messages sent, in characters (read_ahead.ts). */
  get averageMessageChars(): number {
    return this.#averageChars;
  }

  /** Queues one message; false when it cannot be encoded as JSON (nothing is written then). */
  send(message: JsonRpcMessage | JsonRpcResponse[]): boolean {
    if (this.#broken) return true;
    let json: string;
    try {
      // JSON.stringify escapes every newline inside strings, so this is exactly one line.
      json = JSON.stringify(message);
    } catch {
      return false;
    }
    // Kept without its newline: the pump adds them as it joins, saving a copy per message.
    this.#queue.push(json);
    this.#backlog += json.length + 1;
    // Each message weighs 1/16: a run of large replies shows within a few of them.
    this.#averageChars += (json.length - this.#averageChars) / 16;
    heapPressure.noteWork(json.length);
    if (!this.#pumping && !this.#scheduled) {
      this.#scheduled = true;
      // After I/O callbacks, not in a microtask: replies finished in the same turn then share
      // one write() instead of one syscall each.
      setImmediate(() => {
        this.#scheduled = false;
        if (!this.#pumping) void this.#pump();
      });
    }
    return true;
  }

  /**
   * Writes what is queued now, in one call, unless a write is under way: the transport calls it
   * once it has handled a chunk of input, so the replies ready by then go out at once, together.
   * More than a pipe's buffer waits for the pump set after this turn: written from the read loop,
   * a 1 MiB reply came back later (best of 40 echoes: 6.2 against 5.2 ms).
   */
  writeQueued(): void {
    if (this.#pumping || this.#broken || this.#queue.length === 0) return;
    if (this.#backlog <= WRITE_AT_ONCE) void this.#pump();
  }

  /** Resolves when everything sent so far has been written, or after `ms`. */
  flush(ms: number): Promise<void> {
    if (this.#backlog === 0 || this.#broken) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Resolves when everything sent so far has been written, however long that takes. */
  drained(): Promise<void> {
    if (this.#backlog === 0 || this.#broken) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  async #pump(): Promise<void> {
    this.#pumping = true;
    while (this.#queue.length > 0 && !this.#broken) {
      // Coalesce queued messages into few large writes: one syscall for many small replies.
      let size = 0;
      let count = 0;
      while (
        count < this.#queue.length &&
        (count === 0 || size + this.#queue[count].length + 1 <= WRITE_CHUNK)
      ) {
        size += this.#queue[count].length + 1;
        count++;
      }
      const chunk = count === 1
        ? this.#queue[0] + "\n"
        : this.#queue.slice(0, count).join("\n") + "\n";
      this.#queue.splice(0, count);
      const written = new Promise<void>((resolve) => {
        const more = this.out.write(chunk, () => resolve());
        if (more) resolve();
      });
      await written;
      this.#backlog -= size;
    }
    this.#pumping = false;
    if (this.#queue.length === 0) {
      for (const wake of this.#waiters.splice(0)) wake();
    }
  }

  #break(error: unknown): void {
    if (this.#broken) return;
    this.#broken = true;
    this.#queue = [];
    this.#backlog = 0;
    for (const wake of this.#waiters.splice(0)) wake();
    this.onBroken(error);
  }
}

/**
 * Hands one line of input to the connection, decoded: a blank line is skipped, one that is not
 * JSON is answered with a parse error (-32700, id null) by the connection like any invalid message.
 */
export function receiveLine(connection: McpConnection, line: string): void {
  if (line.trim() === "") return;
  connection.receive(decodeLine(line));
}

/**
 * Feeds stdin to the connection line by line until end of input, then resolves once every
 * request read has started. An oversized line is answered with an error (carrying its id when it
 * can be found) and reading goes on. Requests start while few enough are unanswered and the
 * output is not backed up; the others wait as raw lines, and past a budget of those stdin is left
 * unread (read_ahead.ts).
 */
export async function serveStdio(
  connection: McpConnection,
  writer: StdoutWriter,
  stdin: Readable,
  maxLineLength: number,
): Promise<void> {
  // Plain chunks, one decoder and one splitter: no stream stage, and no promise per line.
  const decoder = new TextDecoder();
  const splitter = new LineSplitter(maxLineLength);
  const ahead = new ReadAhead(connection, writer);
  const take = async (lines: Line[]) => {
    for (const line of lines) {
      heapPressure.noteWork(line.length);
      // Over the read-ahead budget: no more input is read until there is room.
      let full: Promise<void> | undefined;
      if (line instanceof OversizedLine) {
        full = ahead.refuse(
          failure(
            peekTopLevelId(line.head),
            INVALID_REQUEST,
            `Invalid Request: the message is ${line.length} characters long, over this server's limit of ${maxLineLength} (raise it with --max-line-mb)`,
          ),
          line.length,
        );
      } else if (line.trim() !== "") {
        full = ahead.take(line);
      }
      if (full) await full;
    }
  };
  for await (const chunk of stdin as AsyncIterable<Uint8Array>) {
    const lines: Line[] = [];
    splitter.push(decoder.decode(chunk, { stream: true }), lines);
    if (lines.length > 0) {
      await take(lines);
      // The replies to this chunk's lines that are ready go out together, as a bare echo's would.
      writer.writeQueued();
    }
  }
  const last: Line[] = [];
  splitter.push(decoder.decode(), last);
  splitter.end(last);
  await take(last);
  await ahead.finish();
}
