import { defineTool, type ToolContext } from "../../mcp/tool/mod.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { sandboxStatus, statusLines } from "../_lib/confine/mod.ts";

export default defineTool({
  name: "list_roots",
  title: "Show the allowed directories",
  description:
    "Lists the directories the file tools may work in, as real paths; relative paths start at " +
    "the first one. Also the sandbox commands run in, and what it does not guarantee here.",
  annotations: READ_ONLY,
  input: { type: "object", properties: {}, additionalProperties: false },
  output: {
    type: "object",
    properties: {
      roots: { type: "array", items: { type: "string" } },
      // Its fields are docs/security.md's (SandboxStatus): kept out of the schema, which every
      // tools/list carries.
      sandbox: { type: "object", description: "mode, mechanism, writable, protected, hidden…" },
    },
    required: ["roots", "sandbox"],
    additionalProperties: false,
  },

  run: listRoots,
});

/** Names the allowed roots and what the sandbox allows in them. */
async function listRoots(_args: unknown, ctx: ToolContext) {
  const sandbox = await Sandbox.of(ctx);
  const lines = sandbox.roots.map((root, i) =>
    `${root}${i === 0 ? "  (relative paths start here)" : ""}`
  );
  for (const root of sandbox.moved) {
    lines.push(`${root.path}  (moved or replaced since it was established: allows nothing)`);
  }
  const status = await sandboxStatus(ctx.config, sandbox.roots, ctx.state.dir);
  lines.push("", ...statusLines(status));
  const structured = { roots: sandbox.roots, sandbox: { ...status } };
  return { content: lines.join("\n"), structured };
}
