/** Annotation sets that several tools share, so a tool's hints read as what it is. */
import type { ToolAnnotations } from "../../mcp/tool.ts";

/** Looks, changes nothing, gives the same answer again: the file and listing tools. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Runs whatever a command says, with the user's rights, reaching anything it can. */
export const RUNS_COMMANDS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/** Reads from the web: changes nothing here, but what it reaches is outside the machine. */
export const READS_THE_WEB: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
};

/** Changes toolhost's own records for the session (tasks, the plan, reminders), no user file. */
export const KEEPS_WORKFLOW_STATE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

/** Changes or replaces the user's files; doing it twice is not doing it once. */
export const CHANGES_FILES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};
