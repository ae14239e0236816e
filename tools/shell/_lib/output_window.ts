/**
 * A bounded window over a stream of output with absolute character offsets: the oldest text is
 * dropped once the window is full, and a reader asking for an offset that was dropped is told
 * how much it missed, so nothing is read twice or lost without notice.
 */
export interface WindowRead {
  text: string;
  /** Where `text` starts: the offset asked for, moved past what was dropped or to the end. */
  offset: number;
  /** Where the next read should start. */
  nextOffset: number;
  /** Characters between the requested offset and the oldest one still kept. */
  dropped: number;
}

export class OutputWindow {
  #chunks: string[] = [];
  /** Absolute offset of the first character of #chunks[0]. */
  #start = 0;
  #length = 0;

  constructor(readonly maxChars: number) {}

  /** Offset just past the last character written so far. */
  get end(): number {
    return this.#start + this.#length;
  }

  /** Offset of the oldest character still kept. */
  get start(): number {
    return this.#start;
  }

  append(text: string): void {
    if (text === "") return;
    this.#chunks.push(text);
    this.#length += text.length;
    while (this.#length > this.maxChars) {
      const excess = this.#length - this.maxChars;
      const first = this.#chunks[0];
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#start += first.length;
        this.#length -= first.length;
      } else {
        this.#chunks[0] = first.slice(excess);
        this.#start += excess;
        this.#length -= excess;
      }
    }
  }

  /** Up to `maxChars` characters from `offset` (clamped to what is kept and written). */
  read(offset: number, maxChars: number): WindowRead {
    const from = Math.min(Math.max(offset, this.#start), this.end);
    const dropped = Math.max(0, from - offset);
    const wanted = Math.min(maxChars, this.end - from);
    let skip = from - this.#start;
    const parts: string[] = [];
    let taken = 0;
    for (const chunk of this.#chunks) {
      if (skip >= chunk.length) {
        skip -= chunk.length;
        continue;
      }
      const piece = chunk.slice(skip, skip + (wanted - taken));
      skip = 0;
      parts.push(piece);
      taken += piece.length;
      if (taken >= wanted) break;
    }
    return { text: parts.join(""), offset: from, nextOffset: from + taken, dropped };
  }
}
