/**
 * The server's instructions (initialize's `instructions`, which clients such as Claude Code put
 * in the model's system prompt): written for the tools this session offers, so the model is told
 * of none it does not have, and led by what is wrong when toolhost cannot serve its tools.
 */
import { listOffered, type Tool } from "../../mcp/tool/mod.ts";

/**
 * The instructions for a session offering `tools`, or what is wrong (`problem`, a broken
 * configuration) when nothing can run.
 *
 * @example
 * ```ts
 * serverInstructions(assembled.tools); // "toolhost works on the user's machine. Use `bash` ..."
 * ```
 */
export function serverInstructions(tools: readonly Tool[], problem?: string): string {
  const names = new Set(tools.map((tool) => tool.name));
  const offers = (name: string) => names.has(name);
  // Nothing else is true while the configuration is broken: no tool runs.
  if (problem) {
    return `toolhost cannot work: its configuration has problems:\n${problem.trimEnd()}\n` +
      "Every tool call answers with this error until the configuration is fixed and the client " +
      "restarts toolhost. Tell the user.";
  }
  const said: string[] = [];
  said.push(
    "toolhost works on the user's machine" +
      (offers("list_roots") ? ", inside the allowed roots (list_roots)." : "."),
  );
  if (offers("bash")) {
    said.push(
      "Use `bash` for commands that finish" +
        (offers("bash_background")
          ? ` and \`bash_background\` for servers, watchers and REPLs${
            named(offers, ["bash_output", "bash_input", "bash_kill"], " (then ", ")")
          }.`
          : "."),
    );
  }
  const fileTools = listOffered(offers, [
    "read_file",
    "edit_file",
    "write_file",
    "glob",
    "grep",
    "list_dir",
  ]);
  if (fileTools && offers("bash")) {
    said.push(
      `For files prefer ${fileTools} over shell commands: they stay inside the allowed roots, ` +
        "never corrupt a file, and bound their output.",
    );
  } else if (offers("read_file")) {
    said.push("read_file also reads PDF, Word, Excel and Jupyter files.");
  }
  if (offers("history") || offers("undo")) {
    said.push(
      `Every call is journaled: ${
        [
          offers("history") && "history lists them",
          offers("undo") && "undo reverts a change " +
            "(a command's too)",
        ].filter(Boolean).join(", ")
      }.`,
    );
  }
  said.push("Long outputs are capped and say how to get the rest.");
  return said.join(" ");
}

/** `names` offered, joined, between `open` and `close`; nothing when none is offered. */
function named(offers: (name: string) => boolean, names: string[], open: string, close: string) {
  const list = names.filter(offers).join(", ");
  return list ? `${open}${list}${close}` : "";
}
