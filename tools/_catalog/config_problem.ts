/**
 * A server whose configuration is broken, served anyway over stdio: a client that starts a
 * server which exits shows only "failed to connect" (the reason is in a log file few find), so
 * toolhost starts, lists its tools, and answers every call with what is wrong, and the server
 * instructions lead with it. Nothing runs: no tool, resource, prompt or hook of the modules is
 * offered, since settings that did not load cannot say what they would allow.
 */
import { defineToolHook, ToolError } from "../../mcp/tool/mod.ts";
import type { Assembled } from "./assemble.ts";

/**
 * What a session offers while `problem` (the configuration's report) stands: the tools' names
 * and descriptions, each call refused with the report.
 *
 * @example
 * ```ts
 * const offered = withConfigProblem(await assemble(defaultSettings()), error.message);
 * ```
 */
export function withConfigProblem(assembled: Assembled, problem: string): Assembled {
  const refusal = configRefusal(problem);
  const gate = defineToolHook({
    name: "configuration problem",
    phase: "gate",
    before: () => {
      throw new ToolError(refusal);
    },
  });
  return {
    tools: assembled.tools,
    resources: [],
    templates: [],
    prompts: [],
    hooks: [gate],
    shutdownHooks: [],
    validators: assembled.validators,
    extensions: [],
    warnings: [],
    removed: assembled.removed,
  };
}

/** The sentence every call gets: what is wrong, and what to do. */
export function configRefusal(problem: string): string {
  return "toolhost did not run this: its configuration has problems, and no tool runs until " +
    `they are fixed and the client restarts toolhost (tell the user):\n${problem.trimEnd()}`;
}
