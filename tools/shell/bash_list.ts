import { defineTool, type ToolContext } from "../../mcp/tool/mod.ts";
import { processesOf, STATUSES } from "./_lib/background.ts";
import { processRows } from "./_lib/process_list.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";

export default defineTool({
  name: "bash_list",
  needs: ["bash_background"],
  title: "List background commands",
  description:
    "Lists every process started with bash_background in this session, running or finished " +
    "(the last 100 finished stay listed): id, name, pid, status and exit code, runtime, bytes " +
    "of output and the command.",
  annotations: READ_ONLY,
  input: { type: "object", properties: {}, additionalProperties: false },
  output: {
    type: "object",
    properties: {
      processes: {
        type: "array",
        items: {
          type: "object",
          properties: {
            id: { type: "string" },
            name: { type: ["string", "null"] },
            pid: { type: "integer" },
            command: { type: "string" },
            status: { enum: STATUSES },
            exitCode: { type: ["integer", "null"] },
            signal: { type: ["string", "null"] },
            runtimeMs: { type: "integer" },
            outputBytes: { type: "integer" },
          },
          required: [
            "id",
            "name",
            "pid",
            "command",
            "status",
            "exitCode",
            "signal",
            "runtimeMs",
            "outputBytes",
          ],
          additionalProperties: false,
        },
      },
    },
    required: ["processes"],
    additionalProperties: false,
  },

  run: listProcesses,
});

/** Lists the background processes this session started. */
function listProcesses(_args: unknown, ctx: ToolContext) {
  const processes = processesOf(ctx).list();
  const lines = processes.map((p) => `${p.summary()} · ${p.bytes} bytes of output · ${p.command}`);
  return Promise.resolve({
    content: lines.length ? lines.join("\n") : "No background processes have been started.",
    structured: { processes: processRows(processes) },
  });
}
