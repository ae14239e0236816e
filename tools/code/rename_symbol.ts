import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { CHANGES_FILES } from "../_lib/declarations/annotations.ts";
import type { Sandbox } from "../_lib/sandbox/mod.ts";
import { type Target, transaction } from "../_lib/transaction/mod.ts";
import { pathProperty } from "../_lib/declarations/path_properties.ts";
import type { TextEdit } from "./_lib/lsp/mod.ts";
import { loadLsp, type Lsp } from "./_lib/lsp_load.ts";

/** One file the server's edit changes: every URI it gave the file, and all their edits. */
interface Edited {
  real: string;
  uris: string[];
  edits: TextEdit[];
}

interface Planned {
  target: Target;
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
  run: renameSymbol,
});

/** What the model asked rename_symbol for. */
interface RenameArgs {
  path: string;
  line?: number;
  column?: number;
  symbol?: string;
  new_name: string;
}

/**
 * Asks the file's language server for the rename, then writes every file it names through the
 * edit transaction, all or none; one undo reverts them all.
 */
async function renameSymbol(args: RenameArgs, ctx: ToolContext) {
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
        `${server.choice.label} finds nothing to rename at ${target.shown}:${position.line + 1}:` +
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
  const files = await editedFiles(lsp, lsp.editsByUri(edit), sandbox);
  return await transaction(ctx, async (tx) => {
    const planned: Planned[] = [];
    for (const file of files) {
      const found = await tx.target(file.real);
      const source = await lsp.readSource(sandbox, file.real, () => tx.open(found));
      for (const uri of file.uris) {
        const seen = server.openText(uri);
        if (seen !== undefined && seen !== source.text) {
          throw new ToolError(
            `${found.shown} changed since ${server.choice.label} read it; try the rename again ` +
              "(nothing was changed)",
          );
        }
      }
      const after = lsp.applyEdits(source.text, file.edits, found.shown);
      if (after !== source.text) {
        planned.push({ target: found, before: source.text, after, edits: file.edits.length });
      }
    }
    if (planned.length === 0) {
      throw new ToolError(
        `${server.choice.label} returned no change for this rename (0 files); nothing was ` +
          "changed. Check the place names the symbol itself.",
      );
    }
    // Checked and kept for undo (the hooks), then written: every file or none.
    await tx.name(planned.map((p) => ({ path: p.target.real, kind: "replaces" })));
    const encoder = new TextEncoder();
    await tx.replaceAll(planned.map((p) => ({
      target: p.target,
      content: encoder.encode(p.after),
      before: encoder.encode(p.before),
    })));
    // The diagnostics hook sends the new contents to the running servers after the call.
    const total = planned.reduce((n, p) => n + p.edits, 0);
    const lines = planned.map((p) => `${p.target.shown} (${p.edits})`);
    return {
      content:
        `${server.choice.label}: renamed to ${args.new_name}: ${total} edit${
          total === 1 ? "" : "s"
        } in ` +
        `${planned.length} file${planned.length === 1 ? "" : "s"}\n${lines.join("\n")}`,
      structured: {
        server: server.choice.label,
        edits: total,
        files: planned.map((p) => ({ path: p.target.shown, edits: p.edits })),
      },
    };
  });
}

/**
 * The files the server's edit names, each once by its real path: a server may name one file
 * under two URIs (`file:///R/a.fk` and `file:///R/./a.fk`), whose edits then apply together
 * (overlapping ones are refused), never one after the other over the same old text. A file
 * outside the roots refuses the whole rename.
 */
async function editedFiles(
  lsp: Lsp,
  byUri: Map<string, TextEdit[]>,
  sandbox: Sandbox,
): Promise<Edited[]> {
  const outside: string[] = [];
  const byReal = new Map<string, Edited>();
  for (const [uri, edits] of byUri) {
    const path = lsp.pathOf(uri);
    const resolved = path === undefined
      ? undefined
      : await sandbox.resolve(path).catch(() => undefined);
    if (!resolved) {
      outside.push(path ?? uri.slice(0, 300));
      continue;
    }
    const file = byReal.get(resolved.real);
    if (file) {
      file.uris.push(uri);
      file.edits.push(...edits);
    } else byReal.set(resolved.real, { real: resolved.real, uris: [uri], edits: [...edits] });
  }
  if (outside.length > 0) {
    throw new ToolError(
      `the rename would change ${outside.length} file(s) outside the allowed roots ` +
        `(${outside.slice(0, 5).join(", ")}${
          outside.length > 5 ? ", …" : ""
        }); nothing was changed`,
    );
  }
  return [...byReal.values()];
}
