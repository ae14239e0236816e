/**
 * LineSplitStream: the TextLineStream role (JSR's @std/streams is unreachable here).
 * Splits decoded text into lines on "\n", drops a trailing "\r", and never buffers more
 * than `maxLineLength` characters of one line: a longer line is skipped to its end and
 * reported as an OversizedLine, so the reader can answer with an error and go on.
 */

/** What is kept of an oversized line: its length and its first characters (to find its id). */
export class OversizedLine {
  constructor(readonly length: number, readonly head: string) {}
}

export type Line = string | OversizedLine;

const HEAD_KEPT = 4096;

export class LineSplitStream extends TransformStream<string, Line> {
  constructor(maxLineLength: number) {
    // Parts of the line being assembled; joined once when its newline arrives, so a
    // 10 MB line costs one copy, not one per chunk.
    let parts: string[] = [];
    let partsLength = 0;
    // Set while skipping the rest of an oversized line.
    let skipping: { length: number; head: string } | null = null;

    const emit = (line: string, controller: TransformStreamDefaultController<Line>) => {
      controller.enqueue(line.endsWith("\r") ? line.slice(0, -1) : line);
    };

    const takeParts = (): string => {
      const joined = parts.length === 1 ? parts[0] : parts.join("");
      parts = [];
      partsLength = 0;
      return joined;
    };

    const append = (piece: string) => {
      if (skipping) {
        skipping.length += piece.length;
        return;
      }
      if (partsLength + piece.length > maxLineLength) {
        let head = "";
        for (const part of [...parts, piece]) {
          head += part.slice(0, HEAD_KEPT - head.length);
          if (head.length >= HEAD_KEPT) break;
        }
        skipping = { length: partsLength + piece.length, head };
        parts = [];
        partsLength = 0;
        return;
      }
      parts.push(piece);
      partsLength += piece.length;
    };

    const endLine = (controller: TransformStreamDefaultController<Line>) => {
      if (skipping) {
        controller.enqueue(new OversizedLine(skipping.length, skipping.head));
        skipping = null;
        return;
      }
      emit(takeParts(), controller);
    };

    super({
      transform(chunk, controller) {
        let start = 0;
        for (;;) {
          const newline = chunk.indexOf("\n", start);
          if (newline === -1) break;
          if (parts.length === 0 && !skipping) {
            const line = chunk.slice(start, newline);
            if (line.length > maxLineLength) {
              controller.enqueue(new OversizedLine(line.length, line.slice(0, HEAD_KEPT)));
            } else {
              emit(line, controller);
            }
          } else {
            append(chunk.slice(start, newline));
            endLine(controller);
          }
          start = newline + 1;
        }
        if (start < chunk.length) append(chunk.slice(start));
      },
      flush(controller) {
        if (partsLength > 0 || skipping) endLine(controller);
      },
    });
  }
}
