import { defineTool, ToolError } from "../../mcp/tool/mod.ts";
import { CHANGES_FILES } from "../_lib/declarations/annotations.ts";
import { whileChanging, writeFileAtomic } from "../_lib/sandbox/mod.ts";
import { pathProperty } from "../_lib/declarations/path_properties.ts";
import { loadLsp } from "./_lib/lsp_load.ts";

interface Planned {
  real: string;
  shown: string;
  uri: string;
  before: string;
  after: string;
  edits: number;
}

export default defineTool({
  name: "rename_symbol",
  title: "Rename a symbol across files",
  description: (offers) =>
    "Renames the symbol at `path` + `line`/`column` (1-based) or `symbol` (a name path, " +
    "Class/method) everywhere the language server finds it: every file or none (refused if " +
    "one is outside the roots or changed meanwhile). Lists each file's edits" +
    (offers("undo") ? "; one `undo` reverts all." : "."),
  annotations: CHANGES_FILES,
  // The files the server's edit names, known once it answers: named before any is written.
  writes: { atRunTime: true },
  input: {
    type: "object",
    properties: {
      path: pathProperty("The file where the symbol is"),
      line: { type: "integer", minimum: 1 },
      column: { type: "integer", minimum: 1 },
      symbol: { type: "string", minLength: 1, maxLength: 500 },
      new_name: { type: "string", minLength: 1, maxLength: 200, pattern: "^[^\\r\\n]+$" },
    },
    required: ["path", "new_name"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      server: { type: "string" },
      edits: { type: "integer" },
      files: {
        type: "array",
        items: {
          type: "object",
          properties: { path: { type: "string" }, edits: { type: "integer" } },
          required: ["path", "edits"],
        },
      },
    },
    required: ["server", "edits", "files"],
  },
  async run(args, ctx) {
    const lsp = await loadLsp();
    const target = await lsp.targetFile(args.path, ctx);
    const { server, sandbox } = target;
    if (target.loading) {
      throw new ToolError(
        `${server.choice.label} is still loading the project (${target.loading}); a rename now ` +
          "could miss places. Try again shortly; nothing was changed.",
      );
    }
    const position = await lsp.targetPosition(target, args, ctx);
    const at = { textDocument: { uri: target.uri }, position };
    const provider = server.capabilities.renameProvider;
    if (!provider) throw new ToolError(`${server.choice.label} does not offer renames`);
    if (
      typeof provider === "object" && (provider as { prepareProvider?: boolean }).prepareProvider
    ) {
      const prepared = await lsp.ask(server, "textDocument/prepareRename", at, ctx.signal).catch(
        (error) => {
          throw new ToolError(`${(error as Error).message}; nothing was changed`);
        },
      );
      if (!prepared) {
        throw new ToolError(
          `${server.choice.label} finds nothing to rename at ${target.shown}:${
            position.line + 1
          }:` +
            `${position.character + 1}; nothing was changed`,
        );
      }
    }
    const edit = await lsp.ask(
      server,
      "textDocument/rename",
      { ...at, newName: args.new_name },
      ctx.signal,
    );
    const byUri = lsp.editsByUri(edit);
    const outside: string[] = [];
    const files: { uri: string; real: string; shown: string }[] = [];
    for (const uri of byUri.keys()) {
      const path = lsp.pathOf(uri);
      const resolved = path === undefined
        ? undefined
        : await sandbox.resolve(path).catch(() => undefined);
      if (!resolved) outside.push(path ?? uri.slice(0, 300));
      else files.push({ uri, real: resolved.real, shown: sandbox.display(resolved.real) });
    }
    if (outside.length > 0) {
      throw new ToolError(
        `the rename would change ${outside.length} file(s) outside the allowed roots ` +
          `(${outside.slice(0, 5).join(", ")}${
            outside.length > 5 ? ", …" : ""
          }); nothing was changed`,
      );
    }
    return await whileChanging(async () => {
      const planned: Planned[] = [];
      for (const file of files) {
        const source = await lsp.readSource(sandbox, file.real);
        const seen = server.openText(file.uri);
        if (seen !== undefined && seen !== source.text) {
          throw new ToolError(
            `${file.shown} changed since ${server.choice.label} read it; try the rename again ` +
              "(nothing was changed)",
          );
        }
        const edits = byUri.get(file.uri)!;
        const after = lsp.applyEdits(source.text, edits, file.shown);
        if (after !== source.text) {
          planned.push({ ...file, before: source.text, after, edits: edits.length });
        }
      }
      if (planned.length === 0) {
        throw new ToolError(
          `${server.choice.label} returned no change for this rename (0 files); nothing was ` +
            "changed. Check the place names the symbol itself.",
        );
      }
      await ctx.writes.willWrite(planned.map((p) => ({ path: p.real, kind: "replaces" })));
      const written: Planned[] = [];
      try {
        for (const file of planned) {
          await writeFileAtomic(file.real, new TextEncoder().encode(file.after), sandbox, {
            digest: true,
          });
          written.push(file);
        }
      } catch (error) {
        const restored = await Promise.all(
          written.map((file) =>
            writeFileAtomic(file.real, new TextEncoder().encode(file.before), sandbox, {
              digest: true,
            })
              .then(() => true, () => false)
          ),
        );
        const lost = written.filter((_, i) => !restored[i]).map((f) => f.shown);
        throw new ToolError(
          `the rename stopped writing: ${(error as Error).message}; ` +
            (lost.length === 0
              ? `the ${written.length} file(s) already written were put back`
              : `these files could not be put back and hold the new name: ${lost.join(", ")}`),
        );
      }
      // The diagnostics hook sends the new contents to the running servers after the call.
      const total = planned.reduce((n, p) => n + p.edits, 0);
      const lines = planned.map((p) => `${p.shown} (${p.edits})`);
      return {
        content:
          `${server.choice.label}: renamed to ${args.new_name}: ${total} edit${
            total === 1 ? "" : "s"
          } in ` +
          `${planned.length} file${planned.length === 1 ? "" : "s"}\n${lines.join("\n")}`,
        structured: {
          server: server.choice.label,
          edits: total,
          files: planned.map((p) => ({ path: p.shown, edits: p.edits })),
        },
      };
    });
  },
});
