/**
 * The named sets of tools a session can offer (`tools.profile`, `--profile`), before
 * `tools.allow` and `tools.deny` narrow them further. Every tool costs the client context on every
 * turn, so a client that has its own file and shell tools should not pay for toolhost's again.
 */
import type { ToolProfile } from "../../config/settings.ts";
import type { Tool } from "../../mcp/tool/mod.ts";

/**
 * What clients such as Claude Code, Cursor, Gemini CLI and Codex already have built in: a shell
 * with background processes, reading and writing text files, editing, globbing and grepping. Kept
 * in `companion` all the same: read_file (PDF, Word, Excel and notebooks), move/copy/delete (which
 * those clients do through the shell, without undo), the web, journal and undo, the workflow
 * tools, skills and code intelligence.
 */
const CLIENT_BUILT_INS = new Set([
  "bash",
  "bash_background",
  "bash_output",
  "bash_input",
  "bash_list",
  "bash_kill",
  "write_file",
  "edit_file",
  "notebook_edit",
  "create_directory",
  "glob",
  "grep",
  "list_dir",
  "file_info",
]);

export const PROFILES: readonly ToolProfile[] = ["full", "companion", "read-only"];

/**
 * Why `tool` is left out of `profile`, or undefined when the profile offers it.
 *
 * @example
 * ```ts
 * profileExcludes("companion", bashTool); // "the client has its own (profile companion)"
 * profileExcludes("full", bashTool); // undefined
 * ```
 */
export function profileExcludes(profile: ToolProfile, tool: Tool): string | undefined {
  if (profile === "companion" && CLIENT_BUILT_INS.has(tool.name)) {
    return "the client has its own (profile companion)";
  }
  if (profile === "read-only" && tool.annotations?.readOnlyHint !== true) {
    return "not read-only (profile read-only)";
  }
  return undefined;
}
