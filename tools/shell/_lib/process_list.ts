/**
 * What bash_list and toolhost://processes say about each background process: one shape, so a
 * reader of the resource (the review app) sees what the tool's caller sees.
 */
import { background } from "./background.ts";

/**
 * @example
 * ```ts
 * const rows = processRows(); // [{ id: "p1", status: "running", exitCode: null, ... }]
 * ```
 */
export function processRows() {
  return background.list().map((p) => ({
    ...p.facts(),
    name: p.name ?? null,
    command: p.command,
    runtimeMs: p.runtimeMs,
    outputBytes: p.bytes,
  }));
}
