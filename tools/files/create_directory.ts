import { defineTool, listOffered, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { describeEntry, makeDirectories, Sandbox, whileChanging } from "../_lib/sandbox/mod.ts";
import { pathProperty } from "../_lib/declarations/path_properties.ts";
import { CREATES_DIRECTORIES } from "../_lib/declarations/annotations.ts";

export default defineTool({
  name: "create_directory",
  title: "Create a directory",
  description: (offers) => {
    const others = listOffered(offers, ["write_file", "copy_file", "move_file"]);
    return "Creates a directory and its missing parents (mkdir -p); one that exists is reported, " +
      `a non-directory in the way is an error.${
        others ? ` ${others} create parents themselves.` : ""
      }`;
  },
  annotations: CREATES_DIRECTORIES,
  writes: { paths: [{ arg: "path", kind: "creates" }] },
  input: {
    type: "object",
    properties: {
      path: pathProperty("The directory to create"),
    },
    required: ["path"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      path: { type: "string" },
      created: { type: "boolean", description: "false when it already existed" },
    },
    required: ["path", "created"],
    additionalProperties: false,
  },

  run: createDirectory,
});

/** What the model asked create_directory for. */
interface CreateDirectoryArgs {
  path: string;
}

/** Creates the directory with its missing parents; an existing directory is left as it is. */
function createDirectory(args: CreateDirectoryArgs, ctx: ToolContext) {
  return whileChanging(async () => {
    const sandbox = await Sandbox.of(ctx);
    const { real, exists } = await sandbox.resolve(args.path);
    const shown = sandbox.display(real);
    if (exists) {
      const info = await sandbox.info(real);
      if (!info.isDirectory()) {
        throw new ToolError(
          `${shown} already exists as a ${describeEntry(info)}, not a directory. Choose another ` +
            "path, or move it away with move_file first.",
        );
      }
      return {
        content: `${shown} already exists as a directory; nothing to do.`,
        structured: { path: shown, created: false },
      };
    }
    const first = await makeDirectories(sandbox, real);
    const parents = first && first !== real
      ? ` (with its parents from ${sandbox.display(first)})`
      : "";
    return {
      content: `Created the directory ${shown}${parents}.`,
      structured: { path: shown, created: true },
    };
  });
}
