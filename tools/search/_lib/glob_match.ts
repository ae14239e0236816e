/**
 * glob's pattern test, called for every file a walk meets: picomatch's own answer, without the
 * wrapper its matcher puts around each call (a result object per path, options looked up each
 * time). picomatch.test matches a path equal to the pattern, else runs the pattern's regex on
 * the path (no format or basename option is used here), and so does this.
 *
 * The commonest patterns, `**\/*.ts` and `*.ts`, skip the regex: for the paths a walk makes
 * (relative, "/"-separated, never empty, no "." or ".." segment, no trailing "/") they mean "the
 * name ends with .ts", at any depth or at the top. tests/search/glob_match_test.ts compares both
 * with picomatch.
 */
import process from "node:process";
import picomatch from "picomatch";

/** `**\/*<tail>` or `*<tail>`, where the tail holds no character picomatch reads as special. */
const NAME_ENDS_WITH = /^(\*\*\/)?\*([A-Za-z0-9_.-]+)$/;

/**
 * Whether path `rel` matches `pattern`; `name` is its last segment (the walk has it at hand: a
 * test of the name alone spares building the whole path string of a file that does not match).
 */
export function globMatcher(pattern: string): (rel: string, name: string) => boolean {
  const simple = NAME_ENDS_WITH.exec(pattern);
  if (simple) {
    // The tail holds no "/": the path ends with it exactly when its last name does.
    const [, anyDepth, tail] = simple;
    return anyDepth
      ? (_rel, name) => name.endsWith(tail)
      : (rel, name) => name.endsWith(tail) && !rel.includes("/");
  }
  // The `windows` option picomatch() itself would default to on this platform.
  const regex = picomatch.makeRe(pattern, { dot: true, windows: process.platform === "win32" });
  return (rel) => rel !== "" && (rel === pattern || regex.test(rel));
}
