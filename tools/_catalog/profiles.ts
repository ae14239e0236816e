/**
 * The named sets of tools a session can offer (`tools.profile`, `--profile`), before
 * `tools.allow` and `tools.deny` narrow them further. Every tool costs the client context on every
 * turn, so a client that has a tool of its own for a job should not pay for toolhost's again:
 * each client profile leaves out what that client has built in, and keeps what it lacks.
 */
import type { ToolProfile } from "../../config/settings.ts";
import type { Tool } from "../../mcp/tool/mod.ts";

/**
 * What every agent client with tools of its own (Claude Code, Cursor, Gemini CLI, Codex) has: a
 * shell with background processes, reading and writing text files, editing, globbing and
 * grepping. Kept all the same: read_file (PDF, Word, Excel and notebooks), move/copy/delete
 * (which those clients do through the shell, without undo), journal and undo, reminders and code
 * intelligence.
 */
const SHELL_AND_FILES = [
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
];

/**
 * What Claude Code and Gemini CLI also have built in: a task list (TodoWrite, write_todos), plan
 * mode (EnterPlanMode/ExitPlanMode, enter_plan_mode/exit_plan_mode), questions to the person
 * (AskUserQuestion, ask_user), web search and fetch (WebSearch/WebFetch, google_web_search/
 * web_fetch) and Agent Skills (Skill, activate_skill).
 */
const AGENT_WORKFLOW = ["tasks", "plan_mode", "ask_user", "web_search", "fetch_url", "skill"];

/** By profile, the tools its client has of its own (read-only is decided by annotation). */
const CLIENT_HAS: Partial<Record<ToolProfile, ReadonlySet<string>>> = {
  "companion": new Set(SHELL_AND_FILES),
  "claude-code": new Set([...SHELL_AND_FILES, ...AGENT_WORKFLOW]),
  "gemini-cli": new Set([...SHELL_AND_FILES, ...AGENT_WORKFLOW]),
};

export const PROFILES: readonly ToolProfile[] = [
  "full",
  "companion",
  "claude-code",
  "gemini-cli",
  "read-only",
];

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
  if (CLIENT_HAS[profile]?.has(tool.name)) return `the client has its own (profile ${profile})`;
  if (profile === "read-only" && tool.annotations?.readOnlyHint !== true) {
    return "not read-only (profile read-only)";
  }
  return undefined;
}
