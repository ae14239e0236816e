/**
 * What both rankings start from: every definition of the files, flat (file, symbol), with the
 * word its name is and how many other files use that word.
 */
import { type FileOutline, usesOf, WORDS } from "../outlines/mod.ts";
import type { TimeSlice } from "../time_slice.ts";

/** A definition's own name without its qualifier (`A::f` is used as `f`). */
export function leafName(name: string): string {
  return name.slice(name.lastIndexOf(":") + 1);
}

/** The definitions of `files`, flat, in file order then in order within their file. */
export interface Definitions {
  files: readonly FileOutline[];
  /** Each definition's file (index in `files`) and its index in that file's symbols. */
  file: Uint32Array;
  symbol: Uint32Array;
  /** Its name's word (WORDS), or -1 when no file uses the name. */
  word: Int32Array;
  /** How many other files use its name. */
  refs: Uint32Array;
  /** How many definitions, of all, have its name. */
  namesakes: Uint32Array;
  /** How many files use each word (by WORDS number; references only). */
  usedIn: Uint32Array;
}

/** Flattens `files`' definitions, counting uses as it goes; pauses when `slice` says so. */
export async function definitionsOf(
  files: readonly FileOutline[],
  slice: TimeSlice,
): Promise<Definitions> {
  const usedIn = new Uint32Array(WORDS.size);
  let total = 0;
  for (const outline of files) {
    for (const id of outline.words) usedIn[id]++;
    for (const definition of outline.symbols) if (!definition.local) total++;
    if (slice.due()) await slice.pause();
  }
  const file = new Uint32Array(total);
  const symbol = new Uint32Array(total);
  const word = new Int32Array(total);
  const refs = new Uint32Array(total);
  const namesakes = new Uint32Array(total);
  const byName = new Map<string, number>();
  let at = 0;
  for (const [f, outline] of files.entries()) {
    for (const [s, definition] of outline.symbols.entries()) {
      // A function's local definitions are no part of the project's map.
      if (definition.local) continue;
      const name = leafName(definition.name);
      byName.set(name, (byName.get(name) ?? 0) + 1);
      const id = WORDS.idOf(name);
      file[at] = f;
      symbol[at] = s;
      word[at] = id ?? -1;
      if (id !== undefined && id < usedIn.length) {
        const own = usesOf(outline.words, outline.counts, id) > 0 ? 1 : 0;
        refs[at] = usedIn[id] - own;
      }
      at++;
    }
    if (slice.due()) await slice.pause();
  }
  at = 0;
  for (const outline of files) {
    for (const definition of outline.symbols) {
      if (definition.local) continue;
      namesakes[at++] = byName.get(leafName(definition.name))!;
    }
    if (slice.due()) await slice.pause();
  }
  return { files, file, symbol, word, refs, namesakes, usedIn };
}
