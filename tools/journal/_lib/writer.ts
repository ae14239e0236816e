/**
 * The journal's writer: entries are written in batches (per journal file: one lock, one append
 * of many lines). A call that changed nothing has its entry queued and its reply goes out at
 * once; the queue waits up to GATHER_MS for more. A call that changed files waits until its line
 * is in the file (written, not forced to disk), so a crash after its reply never loses the line
 * undo needs; it is appended at once, with whatever is queued or arrives meanwhile. The queue of
 * the others is bounded: past `limit` entries new ones are dropped and counted, and the count is
 * journaled as a note (tool "journal", `dropped`). flush() waits for the queue to empty (history,
 * undo and an orderly shutdown call it); a crash loses at most what was still queued, never the
 * line of a change that was answered.
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { appendMany, type Entry, newId } from "./journal.ts";
import { SERVER } from "./session.ts";

type Append = (file: string, entries: Entry[], maxBytes: number) => Promise<void>;

/**
 * How long a batch waits for more entries before it is written (not at all once it holds
 * `batch` entries, nor when someone flushes). Each batch takes the journal's lock and appends:
 * several file-system calls whose callbacks share the thread with the protocol, which a client
 * calling tools one after another would otherwise pay for on every call.
 */
const GATHER_MS = 100;

interface Item {
  /** The journal file, or a promise of it (undefined: nowhere to record). */
  file: string | Promise<string | undefined>;
  entry: Entry;
  maxBytes: number;
  /** For an entry written now: called once its batch was appended (or failed). */
  written?: () => void;
}

export class BatchWriter {
  #queue: Item[] = [];
  /** Entries dropped since the last note, and where the last of them would have gone. */
  #dropped: { count: number; file: Item["file"]; maxBytes: number } | undefined;
  #running: Promise<void> | undefined;
  /** Ends the gathering wait at once: the batch is full, someone flushes, or a change waits. */
  #hurry: (() => void) | undefined;
  /** Queued entries written now (write()): the next batch goes without gathering. */
  #urgent = 0;

  constructor(
    readonly limit = 4096,
    readonly batch = 1024,
    readonly append: Append = appendMany,
    readonly onError: (error: Error, lost: number) => void = () => {},
    readonly gatherMs = GATHER_MS,
  ) {}

  /** Queues `entry`; false when the queue was full and it was dropped (and counted). */
  push(file: Item["file"], entry: Entry, maxBytes: number): boolean {
    if (this.#queue.length >= this.limit) {
      this.#dropped = { count: (this.#dropped?.count ?? 0) + 1, file, maxBytes };
      this.#kick();
      return false;
    }
    this.#queue.push({ file, entry, maxBytes });
    this.#kick();
    if (this.#queue.length >= this.batch) this.#hurry?.();
    return true;
  }

  /**
   * Queues `entry` and resolves once its line is appended, with everything queued before it: at
   * once, not after a gathering wait (a batch being written meanwhile is followed by another
   * straight away, holding every entry that came while it was written). Never dropped: the
   * caller waits for it, so such entries are bounded by the calls in flight. A failure to write
   * resolves too, reported through onError like any batch's.
   */
  write(file: Item["file"], entry: Entry, maxBytes: number): Promise<void> {
    return new Promise<void>((written) => {
      this.#queue.push({ file, entry, maxBytes, written });
      this.#urgent++;
      this.#kick();
      this.#hurry?.();
    });
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Waits until everything queued is written, at most `ms`; whether it was. */
  async flush(ms = Infinity): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.#running || this.#queue.length > 0 || this.#dropped !== undefined) {
      this.#kick();
      this.#hurry?.();
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.#running,
        ms === Infinity ? undefined : new Promise((resolve) => (timer = setTimeout(resolve, left))),
      ].filter(Boolean));
      clearTimeout(timer);
    }
    return true;
  }

  #kick(): void {
    if (this.#running) return;
    this.#running = this.#drain().finally(() => {
      this.#running = undefined;
      if (this.#queue.length > 0 || this.#dropped !== undefined) this.#kick();
    });
  }

  /** Resolves after GATHER_MS, or sooner when hurried. */
  #gathered(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#hurry!(), this.gatherMs);
      this.#hurry = () => {
        clearTimeout(timer);
        this.#hurry = undefined;
        resolve();
      };
    });
  }

  /**
   * Writes one batch, after a moment for the calls that follow to join it (a full batch goes at
   * once, and so does one holding an entry written now); what is queued meanwhile is the next
   * drain's. Every other batch gathers: were the next written as soon as this one ends, a slow
   * disk would turn the writer into a loop of lock and append for a few entries each.
   */
  async #drain(): Promise<void> {
    if (this.#queue.length < this.batch && this.#urgent === 0) await this.#gathered();
    const items = this.#queue.splice(0, this.batch);
    for (const item of items) if (item.written) this.#urgent--;
    if (this.#dropped) {
      const { count, file, maxBytes } = this.#dropped;
      items.push({ file, entry: droppedNote(count), maxBytes });
      this.#dropped = undefined;
    }
    try {
      await this.#appendGrouped(items);
    } finally {
      for (const item of items) item.written?.();
    }
  }

  /** Appends `items` per file, in queue order; a failure is reported, not thrown. */
  async #appendGrouped(items: Item[]): Promise<void> {
    // Per file, in queue order.
    const byFile = new Map<string, { entries: Entry[]; maxBytes: number }>();
    for (const item of items) {
      const file = await Promise.resolve(item.file).catch(() => undefined);
      if (file === undefined) continue;
      const group = byFile.get(file) ?? { entries: [], maxBytes: item.maxBytes };
      group.entries.push(item.entry);
      byFile.set(file, group);
    }
    for (const [file, { entries, maxBytes }] of byFile) {
      try {
        await this.append(file, entries, maxBytes).catch(async (error) => {
          if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
          // The state directory was removed meanwhile: made again, once.
          await mkdir(dirname(file), { recursive: true });
          await this.append(file, entries, maxBytes);
        });
      } catch (error) {
        this.onError(error as Error, entries.length);
      }
    }
  }
}

function droppedNote(count: number): Entry {
  return {
    id: newId(),
    session: SERVER,
    time: new Date().toISOString(),
    era: "",
    tool: "journal",
    args: { dropped: count },
    outcome: "error",
    ms: 0,
    dropped: count,
  };
}
