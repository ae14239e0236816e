/**
 * The command sandbox: one policy for every process toolhost starts (commands, language servers,
 * searches), applied on Linux by toolhost-confine (Landlock, user and mount namespaces, seccomp),
 * on macOS by Seatbelt, and said plainly where there is none. A call gets its process's sandbox
 * with `sandboxFor(ctx, kind)` and hands its `confinement` to spawnInGroup, which requires one.
 * The files behind this one are the package's own: import from here.
 *
 * @example Run a command confined, and say what the sandbox refused
 * ```ts
 * import type { ToolContext } from "../../../mcp/tool/mod.ts";
 * import { spawnInGroup } from "../processes/mod.ts";
 * // From tools/<family>/, the face is "../_lib/confine/mod.ts".
 * import { sandboxFor } from "./mod.ts";
 *
 * export async function run(ctx: ToolContext, command: string, cwd: string) {
 *   const sandbox = await sandboxFor(ctx, "command"); // a ToolError if one is required and absent
 *   const child = spawnInGroup("/bin/sh", ["-c", command], { cwd, stdio: "pipe" }, {
 *     confinement: sandbox.confinement,
 *   });
 *   // …collect the output, then:
 *   const notes = (output: string) => [sandbox.header ?? "", ...sandbox.explain(output, cwd)];
 *   return { child, notes };
 * }
 * ```
 * @module
 */
export {
  type ConfineContext,
  type ProcessSandbox,
  sandboxFor,
  type SandboxOptions,
} from "./_process_sandbox.ts";
export { confinedMode, type Policy, policyFor, type ProcessKind } from "./_policy.ts";
// The helper's arguments for a policy, as a spawn gets them (the benchmark times the helper).
export { linuxArguments } from "./_linux.ts";
export { type SandboxStatus, sandboxStatus, startLine, statusLines } from "./_describe.ts";
