/** What the parse worker hands back; offsets are string indices into the file's text. */

/** One definition in a file. */
export interface CodeSymbol {
  name: string;
  kind: string;
  /** The names of its containers and its own, "/"-joined: `Class/method`. */
  namePath: string;
  /** The line (1-based) where the definition proper starts, after its decorators. */
  line: number;
  endLine: number;
  /** Where its whole text starts: the doc comment and decorators directly above it. */
  start: number;
  /** Where its first decorator, annotation or attribute starts (`head` when it has none). */
  decorations: number;
  /** Where the definition proper starts: its keywords and name. */
  head: number;
  /** Where its name starts (the last part of a qualified one): where a language server is asked. */
  nameAt: number;
  end: number;
  /** Its first line from `head`, trimmed and capped. */
  signature: string;
  /** The name path of the symbol it is a member of. */
  parent?: string;
  /**
   * Defined inside a function (a nested function, a const arrow function, a class): addressable
   * by its name path, left out of the project map.
   */
  local?: true;
  /**
   * Its body: braces included; `colon` ends the `:` before a Python block, `doc` is the
   * block's docstring statement.
   */
  body?: { start: number; end: number; colon?: number; doc?: { start: number; end: number } };
}

/** A syntax error's place, 1-based. */
export interface SyntaxPlace {
  line: number;
  column: number;
}

export interface ParsedFile {
  symbols: CodeSymbol[];
  /** How many error or missing nodes the tree has, and the first one's place. */
  errors: number;
  firstError?: SyntaxPlace;
  /** The identifiers it uses (leaves of code, not its definitions' own names), when asked for. */
  identifiers?: Words;
}

/** A file's outcome: parsed, or why not (too slow, the grammar failed). */
export type ParseOutcome = ParsedFile | { failed: string };

/** A file's identifiers, each once, with how many times the file uses it (`counts[i]`). */
export interface Words {
  words: string[];
  counts: number[];
}
