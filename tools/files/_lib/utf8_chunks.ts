/**
 * A string as UTF-8 in chunks, for writing a large text without a second whole copy of it in
 * memory: two buffers are filled in turn (the atomic write writes a chunk before it asks for the
 * one after next). Lone surrogates become U+FFFD, as TextEncoder makes them.
 */

/** UTF-16 code units per chunk; a buffer holds three bytes for each (the most one takes), and a pair more. */
const CHUNK_UNITS = 256 * 1024;

export function* utf8Chunks(text: string, units = CHUNK_UNITS): Generator<Uint8Array> {
  const encoder = new TextEncoder();
  const buffers = [new Uint8Array(units * 3 + 4), new Uint8Array(units * 3 + 4)];
  for (let at = 0, turn = 0; at < text.length; turn ^= 1) {
    let end = Math.min(text.length, at + units);
    // Never between the two halves of a surrogate pair (the buffer has room for one more unit).
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += end - at > 1 ? -1 : 1;
    const { written } = encoder.encodeInto(text.slice(at, end), buffers[turn]);
    yield buffers[turn].subarray(0, written);
    at = end;
  }
}

/** Lines in `text`: its line breaks, plus one for a last line without one. */
export function lineCount(text: string): number {
  if (text === "") return 0;
  let lines = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return text.endsWith("\n") ? lines : lines + 1;
}
