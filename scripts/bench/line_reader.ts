/**
 * Splits decoded stdout text into lines on "\n". The benchmark's own reader, independent of the
 * server's LineSplitStream, so a bug there cannot flatter the figures.
 */
export class LineReader {
  /** The unfinished last line, in pieces: joined once, when its newline arrives. */
  #parts: string[] = [];

  constructor(readonly onLine: (line: string) => void) {}

  push(text: string): void {
    let start = 0;
    let newline = text.indexOf("\n");
    if (newline === -1) {
      this.#parts.push(text);
      return;
    }
    while (newline !== -1) {
      const piece = text.slice(start, newline);
      if (this.#parts.length > 0) {
        this.#parts.push(piece);
        this.onLine(this.#parts.join(""));
        this.#parts = [];
      } else {
        this.onLine(piece);
      }
      start = newline + 1;
      newline = text.indexOf("\n", start);
    }
    if (start < text.length) this.#parts.push(text.slice(start));
  }
}
