/** What the code tools keep of a parsed file: its outline and the identifiers it uses. */

/** One definition, as the map, find and outline show it. */
export interface OutlineSymbol {
  /** Its own name (`A::f` for a C++ method defined outside its class). */
  name: string;
  kind: string;
  /** Its containers' names and its own, `/`-joined. */
  namePath: string;
  line: number;
  endLine: number;
  /** Its first line, trimmed and capped. */
  signature: string;
  /** Whether it is a member of another definition (a method, a field). */
  member: boolean;
  /** A function's local definition: outlined and found, left out of the map. */
  local?: true;
}

/**
 * A file's outline and its identifiers: `words[i]` (numbers of WORDS, ascending) is used
 * `counts[i]` times, its own definitions' names not counted.
 */
export interface Outline {
  symbols: OutlineSymbol[];
  words: Uint32Array;
  counts: Uint32Array;
}

export interface FileOutline extends Outline {
  real: string;
  shown: string;
}
