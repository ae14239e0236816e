/**
 * Tests that only mean something on POSIX (they read /proc, run sh, send signals, expect process
 * groups, FIFOs, POSIX modes or /etc): on Windows each is skipped, saying why. For a whole file,
 * use in place of node:test's `test`:
 *
 *     const test = posixOnlyTest("reads /proc to see which processes are left");
 *
 * For one test among others, pass the options: `test("name", posixOnly("makes a FIFO"), fn)`.
 */
import process from "node:process";
import { test } from "node:test";

const WINDOWS = process.platform === "win32";

export function posixOnlyTest(reason: string): typeof test {
  if (!WINDOWS) return test;
  const skip = `POSIX only: ${reason}`;
  console.error(`skipping on Windows (${skip})`);
  return ((name: string, ...rest: unknown[]) =>
    test(name, { skip }, rest.at(-1) as () => void)) as typeof test;
}

/** node:test options that skip one test on Windows, with the reason. */
export function posixOnly(reason: string): { skip?: string } {
  return WINDOWS ? { skip: `POSIX only: ${reason}` } : {};
}

/** Whether this is Windows, for a hook that would make what only POSIX has (a FIFO, /proc). */
export const ON_WINDOWS = WINDOWS;
