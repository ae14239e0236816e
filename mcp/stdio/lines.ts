/**
 * Splits decoded text into lines on "\n", drops a trailing "\r", and never buffers more than
 * `maxLineLength` characters of one line: a longer line is skipped to its end and reported as an
 * OversizedLine, so the reader can answer with an error and go on. LineSplitter is the plain
 * object the stdio transport drives chunk by chunk (no promise per line); LineSplitStream wraps
 * it as a TransformStream (the TextLineStream role; JSR's @std/streams is unreachable here).
 */

/** What is kept of an oversized line: its length and its first characters (to find its id). */
export class OversizedLine {
  constructor(readonly length: number, readonly head: string) {}
}

export type Line = string | OversizedLine;

const HEAD_KEPT = 4096;

const withoutCr = (line: string) => line.endsWith("\r") ? line.slice(0, -1) : line;

export class LineSplitter {
  // Parts of the line being assembled; joined once when its newline arrives, so a 10 MB line
  // costs one copy, not one per chunk.
  #parts: string[] = [];
  #partsLength = 0;
  /** Set while skipping the rest of an oversized line. */
  #skipping: { length: number; head: string } | null = null;

  constructor(readonly maxLineLength: number) {}

  /** The lines `chunk` completes, in order, added to `out`. */
  push(chunk: string, out: Line[]): void {
    const max = this.maxLineLength;
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf("\n", start);
      if (newline === -1) break;
      if (this.#parts.length === 0 && !this.#skipping) {
        const line = chunk.slice(start, newline);
        out.push(
          line.length > max
            ? new OversizedLine(line.length, line.slice(0, HEAD_KEPT))
            : withoutCr(line),
        );
      } else {
        this.#append(chunk.slice(start, newline));
        out.push(this.#endLine());
      }
      start = newline + 1;
    }
    if (start < chunk.length) this.#append(chunk.slice(start));
  }

  /** At end of input: the last line, when it has no newline. */
  end(out: Line[]): void {
    if (this.#partsLength > 0 || this.#skipping) out.push(this.#endLine());
  }

  #append(piece: string): void {
    if (this.#skipping) {
      this.#skipping.length += piece.length;
      return;
    }
    if (this.#partsLength + piece.length > this.maxLineLength) {
      let head = "";
      for (const part of [...this.#parts, piece]) {
        head += part.slice(0, HEAD_KEPT - head.length);
        if (head.length >= HEAD_KEPT) break;
      }
      this.#skipping = { length: this.#partsLength + piece.length, head };
      this.#parts = [];
      this.#partsLength = 0;
      return;
    }
    this.#parts.push(piece);
    this.#partsLength += piece.length;
  }

  #endLine(): Line {
    if (this.#skipping) {
      const { length, head } = this.#skipping;
      this.#skipping = null;
      return new OversizedLine(length, head);
    }
    const joined = this.#parts.length === 1 ? this.#parts[0] : this.#parts.join("");
    this.#parts = [];
    this.#partsLength = 0;
    return withoutCr(joined);
  }
}

export class LineSplitStream extends TransformStream<string, Line> {
  constructor(maxLineLength: number) {
    const splitter = new LineSplitter(maxLineLength);
    const emit = (lines: Line[], controller: TransformStreamDefaultController<Line>) => {
      for (const line of lines) controller.enqueue(line);
    };
    super({
      transform(chunk, controller) {
        const lines: Line[] = [];
        splitter.push(chunk, lines);
        emit(lines, controller);
      },
      flush(controller) {
        const lines: Line[] = [];
        splitter.end(lines);
        emit(lines, controller);
      },
    });
  }
}
