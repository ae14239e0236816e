/**
 * Bounded capture of command output: keeps the first and the last part, counts what was cut,
 * and never holds more than about `maxChars` however much the command prints.
 */
export class HeadTailBuffer {
  #head = "";
  #headDone = false;
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
    if (!this.#headDone) {
      let room = this.#headMax - this.#head.length;
      if (text.length < room) {
        this.#head += text;
        return;
      }
      // Never end the head between the two halves of a surrogate pair (an emoji, say).
      if (isHighSurrogate(text.charCodeAt(room - 1))) room--;
      this.#head += text.slice(0, room);
      text = text.slice(room);
      this.#headDone = true;
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
    let keptTail = tail.slice(tail.length - this.#tailMax);
    if (isLowSurrogate(keptTail.charCodeAt(0))) keptTail = keptTail.slice(1);
    const cut = this.#total - this.#head.length - keptTail.length;
    return `${this.#head}\n\n[... ${cut} of ${this.#total} characters cut from the middle; ${howToSeeAll} ...]\n\n${keptTail}`;
  }
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
