/**
 * Tests that only mean something on POSIX (they read /proc, run sh, send signals, or expect
 * process groups): on Windows each is skipped, saying why. Use in place of node:test's `test`:
 *
 *     const test = posixOnlyTest("reads /proc to see which processes are left");
 */
import process from "node:process";
import { test } from "node:test";

export function posixOnlyTest(reason: string): typeof test {
  if (process.platform !== "win32") return test;
  const skip = `POSIX only: ${reason}`;
  console.error(`skipping on Windows (${skip})`);
  return ((name: string, ...rest: unknown[]) =>
    test(name, { skip }, rest.at(-1) as () => void)) as typeof test;
}
