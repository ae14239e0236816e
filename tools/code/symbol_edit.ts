import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { CHANGES_FILES } from "../_lib/declarations/annotations.ts";
import { transaction } from "../_lib/transaction/mod.ts";
import { FORCE_PROPERTY, pathProperty } from "../_lib/declarations/path_properties.ts";
import { shownName } from "../_lib/text/shown_name.ts";
import { encodeText } from "../_lib/text/text.ts";
import { crlfOnly, lineOf } from "../_lib/text/lines.ts";
import { NotPicked, pickSymbol } from "./_lib/name_path.ts";
import { type CodeSymbol, parseBatch, type ParseOutcome } from "./_lib/parse/mod.ts";
import { readSource, Unparsable } from "./_lib/source_files.ts";
import { type EditOperation, SpliceError, spliceFor } from "./_lib/symbol_splice.ts";
import { changedLines } from "./_lib/changed_lines.ts";
import { docstringLines, restoreDocstring } from "./_lib/python_docstring.ts";

export default defineTool({
  name: "symbol_edit",
  title: "Edit a code symbol",
  description: (offers) =>
    `Edits the definition \`name_path\`${
      offers("symbols") ? " (as symbols shows it)" : ""
    } in \`path\`: \`replace_body\` (what ` +
    "is inside), `replace_definition` (keeps its doc comment or docstring and decorators " +
    "unless `text` has its own), `insert_before`/`insert_after` (with the file's blank " +
    "lines). `text` is " +
    "re-indented to fit. A result that does not parse is refused.",
  annotations: CHANGES_FILES,
  writes: { paths: [{ arg: "path", kind: "replaces" }], force: "force" },
  input: {
    type: "object",
    properties: {
      path: pathProperty("The source file"),
      operation: {
        type: "string",
        enum: ["replace_body", "replace_definition", "insert_before", "insert_after"],
      },
      name_path: { type: "string", minLength: 1, maxLength: 500 },
      text: { type: "string", maxLength: 1_000_000 },
      line: { type: "integer", minimum: 1, description: "Picks one of same-named symbols" },
      force: FORCE_PROPERTY,
    },
    required: ["path", "operation", "name_path", "text"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      path: { type: "string" },
      namePath: { type: "string" },
      line: { type: "integer" },
      endLine: { type: "integer" },
      written: { type: "boolean" },
    },
    required: ["path", "namePath", "line", "endLine", "written"],
    additionalProperties: false,
  },

  run: editSymbol,
});

/** What the model asked symbol_edit for. */
interface SymbolEditArgs {
  path: string;
  operation: "replace_body" | "replace_definition" | "insert_before" | "insert_after";
  name_path: string;
  text: string;
  line?: number;
  force?: boolean;
}

/** Replaces a symbol's body or definition, or inserts code beside it, in one transaction. */
function editSymbol(args: SymbolEditArgs, ctx: ToolContext) {
  // Through the edit transaction: checked, kept for undo, written atomically, reported one way.
  return transaction(ctx, async (tx) => {
    if (args.text.trim() === "" && args.operation !== "replace_body") {
      throw new ToolError(`text is empty; ${args.operation} needs the code to put there`);
    }
    const target = await tx.target(args.path);
    const shown = shownName(target.shown);
    if (!target.exists) throw new ToolError(`${shown} does not exist`);
    const source = await readSource(tx.sandbox, target.real, () => tx.open(target)).catch(
      (error) => {
        if (!(error instanceof Unparsable)) throw error;
        throw new ToolError(
          error.tooLarge ? `${error.message}; use edit_file instead` : error.message,
        );
      },
    );
    if (source.decoded.invalid > 0) {
      throw new ToolError(
        `${shown} has ${source.decoded.invalid} byte sequences that are not valid ${source.decoded.encoding}; editing it here would change them`,
      );
    }
    const crlf = crlfOnly(source.text);
    const before = crlf ? source.text.replaceAll("\r\n", "\n") : source.text;
    const [parsed] = await parseBatch(
      [{ lang: source.lang, text: before, symbols: true }],
      ctx.signal,
    );
    const outline = parsedOrThrow(parsed, shown);
    const symbol = pick(outline.symbols, args.name_path, args.line, shown);
    let splice;
    try {
      splice = spliceFor(
        before,
        symbol,
        outline.symbols,
        args.operation as EditOperation,
        crlf ? args.text.replaceAll("\r\n", "\n") : args.text,
        source.lang === "python",
      );
    } catch (error) {
      if (error instanceof SpliceError) throw new ToolError(error.message);
      throw error;
    }
    let after = before.slice(0, splice.from) + splice.insert + before.slice(splice.to);
    const doc = source.lang === "python" && args.operation === "replace_definition"
      ? docstringLines(before, symbol)
      : undefined;
    if (doc !== undefined) {
      // The new definition's body, parsed, says whether it brings a docstring of its own.
      const [made] = await parseBatch(
        [{ lang: "python", text: after, symbols: true }],
        ctx.signal,
      );
      if (!("failed" in made)) {
        after = restoreDocstring(
          after,
          made.symbols,
          splice.from,
          splice.from + splice.insert.length,
          doc,
        );
        splice = {
          ...splice,
          insert: after.slice(splice.from, after.length - (before.length - splice.to)),
        };
      }
    }
    if (after === before) {
      throw new ToolError(`the edit changes nothing in ${shown}; nothing was written`);
    }
    const [check] = await parseBatch(
      [{ lang: source.lang, text: after, symbols: false }],
      ctx.signal,
    );
    const checked = parsedOrThrow(check, shown);
    if (checked.errors > outline.errors) {
      const place = checked.firstError;
      throw new ToolError(
        `the edit would leave a syntax error in ${shown}${
          place ? ` at line ${place.line}, column ${place.column}` : ""
        } (${source.lang} parser); nothing was written. Fix the text and try again:\n${
          changedLines(after, splice.from, splice.from + splice.insert.length, place?.line)
        }`,
      );
    }
    const bytes = encodeText(
      crlf ? after.replaceAll("\n", "\r\n") : after,
      source.decoded.encoding,
      source.decoded.bom,
    );
    const { note } = await tx.replace(target, bytes);
    const first = lineOf(after, splice.from);
    const last = lineOf(after, Math.max(splice.from, splice.from + splice.insert.length - 1));
    const verb = VERBS[args.operation as EditOperation];
    return {
      content: `${verb} ${symbol.kind} ${shownName(symbol.namePath)} in ${shown} ` +
        `(now lines ${first}-${last})${note}:\n` +
        changedLines(after, splice.from, splice.from + splice.insert.length),
      structured: {
        path: target.shown,
        namePath: symbol.namePath,
        line: first,
        endLine: last,
        written: true,
      },
    };
  });
}

const VERBS: Record<EditOperation, string> = {
  replace_body: "Replaced the body of",
  replace_definition: "Replaced",
  insert_before: "Inserted before",
  insert_after: "Inserted after",
};

function parsedOrThrow(outcome: ParseOutcome, shown: string) {
  if ("failed" in outcome) throw new ToolError(`${shown} could not be parsed: ${outcome.failed}`);
  return outcome;
}

/** The one symbol `namePath` (and `line`, when given) names, or an error listing the choices. */
function pick(
  symbols: CodeSymbol[],
  namePath: string,
  line: number | undefined,
  shown: string,
): CodeSymbol {
  try {
    return pickSymbol(symbols, namePath, line, shown, shownName);
  } catch (error) {
    if (error instanceof NotPicked) throw new ToolError(error.message);
    throw error;
  }
}
