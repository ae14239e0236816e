/** Picking the units one read shows: from `offset`, at most `limit`, within a character budget. */
import type { ExtractRequest } from "./types.ts";

export class Window {
  readonly parts: string[] = [];
  first: number;
  last: number;
  stoppedForSize = false;
  #chars = 0;

  constructor(readonly request: Pick<ExtractRequest, "offset" | "limit" | "maxChars">) {
    this.first = request.offset;
    this.last = request.offset - 1;
  }

  /** The units this window wants, given `total`: from..to, inclusive. */
  range(total: number): { from: number; to: number } {
    return {
      from: this.request.offset,
      to: Math.min(total, this.request.offset + this.request.limit - 1),
    };
  }

  /**
   * Adds unit `n`'s text; false once the budget is spent (the unit is then left out, unless it
   * is the first, which is cut to the budget instead).
   */
  add(n: number, text: string): boolean {
    const room = this.request.maxChars - this.#chars;
    if (text.length > room && this.parts.length > 0) {
      this.stoppedForSize = true;
      return false;
    }
    const shown = text.length > room
      ? `${text.slice(0, room)}\n[… cut at the character limit]`
      : text;
    this.parts.push(shown);
    this.#chars += shown.length + 1;
    this.last = n;
    if (text.length > room) {
      this.stoppedForSize = true;
      return false;
    }
    return true;
  }

  text(): string {
    return this.parts.join("\n");
  }
}

/** A range of numbers as people read them: "3, 7 and 9–12". */
export function numberList(numbers: number[], most = 20): string {
  const runs: string[] = [];
  for (let i = 0; i < numbers.length && runs.length < most; i++) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
    runs.push(j > i ? `${numbers[i]}–${numbers[j]}` : String(numbers[i]));
    i = j;
  }
  const more = runs.length === most && numbers.length ? " and others" : "";
  return runs.length > 1
    ? `${runs.slice(0, -1).join(", ")} and ${runs[runs.length - 1]}${more}`
    : runs[0] ?? "";
}
