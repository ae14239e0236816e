import { defineTool } from "../../mcp/tool/mod.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";

export default defineTool({
  name: "list_roots",
  title: "Show the allowed directories",
  description:
    "Lists the directories the file tools may work in, as real paths; relative paths start at " +
    "the first one.",
  annotations: READ_ONLY,
  input: { type: "object", properties: {}, additionalProperties: false },
  output: {
    type: "object",
    properties: { roots: { type: "array", items: { type: "string" } } },
    required: ["roots"],
    additionalProperties: false,
  },

  async run(_args, ctx) {
    const sandbox = await Sandbox.of(ctx);
    const lines = sandbox.roots.map((root, i) =>
      `${root}${i === 0 ? "  (relative paths start here)" : ""}`
    );
    for (const root of sandbox.moved) {
      lines.push(`${root.path}  (moved or replaced since it was established: allows nothing)`);
    }
    return { content: lines.join("\n"), structured: { roots: sandbox.roots } };
  },
});
