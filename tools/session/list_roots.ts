import { defineTool } from "../../mcp/tool.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { sandboxStatus, statusLines } from "../_lib/confine/mod.ts";

const LIST = { type: "array", items: { type: "string" } } as const;

export default defineTool({
  name: "list_roots",
  title: "Show the allowed directories",
  description:
    "Lists the directories the file tools may work in, as real paths (relative paths start at " +
    "the first one), and the sandbox commands run in: where they may write, what stays " +
    "protected or hidden, their network, and what this machine does not guarantee.",
  annotations: READ_ONLY,
  input: { type: "object", properties: {}, additionalProperties: false },
  output: {
    type: "object",
    properties: {
      roots: LIST,
      sandbox: {
        type: "object",
        properties: {
          mode: { enum: ["workspace-write", "read-only", "off"] },
          mechanism: { type: "string" },
          unavailable: { type: "string", description: "why commands run unconfined" },
          required: { type: "boolean" },
          network: { type: "string" },
          writable: LIST,
          protected: LIST,
          hidden: LIST,
          caches: LIST,
          notGuaranteed: LIST,
        },
        required: [
          "mode",
          "mechanism",
          "required",
          "network",
          "writable",
          "protected",
          "hidden",
          "caches",
          "notGuaranteed",
        ],
        additionalProperties: false,
      },
    },
    required: ["roots", "sandbox"],
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
    const status = await sandboxStatus(ctx.config, sandbox.roots, ctx.state.dir);
    lines.push("", ...statusLines(status));
    return { content: lines.join("\n"), structured: { roots: sandbox.roots, sandbox: status } };
  },
});
