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

export function globMatcher(pattern: string): (rel: string) => boolean {
  const simple = NAME_ENDS_WITH.exec(pattern);
  if (simple) {
    const [, anyDepth, tail] = simple;
    return anyDepth
      ? (rel) => rel.endsWith(tail)
      : (rel) => rel.endsWith(tail) && !rel.includes("/");
  }
  // The `windows` option picomatch() itself would default to on this platform.
  const regex = picomatch.makeRe(pattern, { dot: true, windows: process.platform === "win32" });
  return (rel) => rel !== "" && (rel === pattern || regex.test(rel));
}
