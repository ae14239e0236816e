/**
 * A file name as a listing shows it: control characters (a newline, ESC, …), Unicode line
 * separators and bidirectional overrides written as escapes (`\n`, `\x1b`, `\u202e`), so a name
 * in a repository cannot add lines that read as the tool's own notes, or reorder what is shown.
 * Names without them (nearly all) come back as they are; a backslash stays one (Windows paths).
 * Structured results keep the real name.
 */
// deno-lint-ignore no-control-regex -- control characters are exactly what it looks for
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, "g");
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

export function shownName(name: string): string {
  if (!UNSAFE.test(name)) return name;
  return name.replace(UNSAFE_ALL, (c) => {
    const code = c.charCodeAt(0);
    return NAMED[c] ??
      (code < 0x100
        ? `\\x${code.toString(16).padStart(2, "0")}`
        : `\\u${code.toString(16).padStart(4, "0")}`);
  });
}
