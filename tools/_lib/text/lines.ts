/** Where a character offset lies in a text, as a person counts lines. */

/**
 * The 1-based line number of character offset `at` in `text`.
 *
 * @example
 * ```ts
 * lineOf("a\nb\nc", 2); // 2
 * ```
 */
export function lineOf(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < at; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/**
 * Whether every line break of `text` is CRLF (and there is one): such a file is edited as LF and
 * written back as CRLF, so an edit may use either.
 */
export function crlfOnly(text: string): boolean {
  return text.includes("\r\n") && !/(^|[^\r])\n/.test(text);
}
