/**
 * Bounded capture of command output: keeps the first and the last part, counts what was cut,
 * and never holds more than about `maxChars` however much the command prints.
 */
export class HeadTailBuffer {
  #head = "";
  #tail: string[] = [];
  #tailLength = 0;
  #total = 0;
  readonly #headMax: number;
  readonly #tailMax: number;

  constructor(readonly maxChars: number) {
    this.#headMax = Math.ceil(maxChars / 2);
    this.#tailMax = maxChars - this.#headMax;
  }

  get totalChars(): number {
    return this.#total;
  }

  get truncated(): boolean {
    return this.#total > this.maxChars;
  }

  push(text: string): void {
    this.#total += text.length;
    if (this.#head.length < this.#headMax) {
      const room = this.#headMax - this.#head.length;
      this.#head += text.slice(0, room);
      text = text.slice(room);
      if (text === "") return;
    }
    this.#tail.push(text);
    this.#tailLength += text.length;
    while (this.#tailLength - this.#tail[0].length >= this.#tailMax) {
      this.#tailLength -= this.#tail.shift()!.length;
    }
  }

  /** The kept text, with a marker saying how much was cut and how to see all of it. */
  text(howToSeeAll: string): string {
    const tail = this.#tail.join("");
    if (!this.truncated) return this.#head + tail;
    const keptTail = tail.slice(tail.length - this.#tailMax);
    const cut = this.#total - this.#head.length - keptTail.length;
    return `${this.#head}\n\n[... ${cut} of ${this.#total} characters cut from the middle; ${howToSeeAll} ...]\n\n${keptTail}`;
  }
}
