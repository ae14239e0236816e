/**
 * What bash_list and toolhost://processes say about each background process: one shape, so a
 * reader of the resource (the review app) sees what the tool's caller sees.
 */
import type { BackgroundProcess } from "./background.ts";

/**
 * @example
 * ```ts
 * const rows = processRows(processesOf(ctx).list()); // [{ id: "p1", status: "running", ... }]
 * ```
 */
export function processRows(processes: BackgroundProcess[]) {
  return processes.map((p) => ({
    ...p.facts(),
    name: p.name ?? null,
    command: p.command,
    runtimeMs: p.runtimeMs,
    outputBytes: p.bytes,
  }));
}
