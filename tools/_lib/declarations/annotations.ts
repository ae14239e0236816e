/** Each tool's hints, as a set named for what the tool is; tools alike share one. */
import type { ToolAnnotations } from "../../../mcp/tool/mod.ts";

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

/** Replaces a file whole: destructive, but writing the same content again changes nothing more. */
export const REPLACES_FILES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

/** Removes files or trees: destructive; removing again finds nothing more to remove. */
export const DELETES_FILES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

/** Adds directories and never replaces anything: making one again finds it there. */
export const CREATES_DIRECTORIES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Runs a program the config calls not destructive: still not read-only, so read-only hides it. */
export const RUNS_NONDESTRUCTIVE_COMMANDS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};

/** Stops a process it started: destructive, but stopping it again changes nothing more. */
export const STOPS_PROCESSES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

/** Reads output as it comes: changes nothing, but the next read gets what came since. */
export const READS_LIVE_OUTPUT: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

/** Asks the user: changes nothing, but asking again may get another answer. */
export const ASKS_THE_USER: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
