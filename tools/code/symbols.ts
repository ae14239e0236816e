import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import { shownName } from "../_lib/text/shown_name.ts";
import { matchesName, type NamePattern, namePattern } from "./_lib/name_path.ts";
import { outlinesOf, type OutlineSymbol } from "./_lib/outlines/mod.ts";
import { languageOf } from "./_lib/parse/mod.ts";
import { projectMap } from "./_lib/project_map.ts";
import { listSources, MAX_SOURCE_FILES, readSource, Unparsable } from "./_lib/source_files.ts";
import { TimeSlice } from "./_lib/time_slice.ts";
import { symbolLine, type SymbolRow, type Walked } from "./_lib/symbol_lines.ts";

const FIND_PAGE = 100;
/** Files in play at most (the schema leaves the bound out: tools/list's budget). */
const MAX_FOCUS = 20;
const MAX_BODY_CHARS = 4_000;
const DEFAULT_MAP_CHARS = 6_000;

export default defineTool({
  name: "symbols",
  title: "Code symbols",
  description:
    "Code definitions by parsing (TS/JS, Python, Go, Rust, Java, C, C++, PHP). `outline`: a " +
    "file's (kind, name path `A/b`, lines, first line). `map`: a directory's " +
    "(default: roots), most used (or near `focus`) first, within " +
    "`max_chars`. `find`: those whose name path ends with `name` (`/A/b` from the top), paged " +
    "by `cursor`.",
  annotations: READ_ONLY,
  input: {
    type: "object",
    properties: {
      operation: { type: "string", enum: ["outline", "map", "find"] },
      path: { type: "string", description: "A file, or a directory (map, find)" },
      name: { type: "string", minLength: 1, maxLength: 500 },
      substring: { type: "boolean", description: "find: part of the last name, any case" },
      include_body: { type: "boolean", description: "find: with each one's text" },
      max_chars: { type: "integer", minimum: 200, maximum: 100_000 },
      cursor: { type: "string", maxLength: 20 },
      focus: { type: "array", items: { type: "string" } },
    },
    required: ["operation"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      symbols: {
        type: "array",
        items: {
          type: "object",
          properties: {
            path: { type: "string" },
            line: { type: "integer" },
            endLine: { type: "integer" },
            kind: { type: "string" },
            namePath: { type: "string" },
            signature: { type: "string" },
            refs: { type: "integer" },
            body: { type: "string" },
          },
          required: ["path", "line", "endLine", "kind", "namePath"],
          additionalProperties: false,
        },
      },
      total: { type: "integer" },
      files: { type: "integer" },
      skipped: { type: "integer" },
      parsed: { type: "integer" },
      cursor: { type: "string" },
      stoppedEarly: { type: "string" },
    },
    required: ["symbols", "total"],
    additionalProperties: false,
  },

  run: listSymbols,
});

/** What the model asked symbols for. */
interface SymbolsArgs {
  operation: "outline" | "map" | "find";
  path?: string;
  name?: string;
  substring?: boolean;
  include_body?: boolean;
  max_chars?: number;
  cursor?: string;
  focus?: string[];
}

/** Outlines a file, maps a directory, or finds symbols by name, within the character budget. */
async function listSymbols(args: SymbolsArgs, ctx: ToolContext) {
  const sandbox = await Sandbox.of(ctx);
  const budget = Math.min(args.max_chars ?? ctx.config.limits.outputChars, 100_000);
  if (args.operation === "outline") {
    if (!args.path) throw new ToolError("outline needs `path`: the file to outline");
    const { real, exists } = await sandbox.resolve(args.path);
    const shown = sandbox.display(real);
    if (!exists) throw new ToolError(`${shownName(shown)} does not exist`);
    if ((await sandbox.info(real)).isDirectory()) {
      throw new ToolError(
        `${
          shownName(shown)
        } is a directory; outline takes a file (use operation "map" for a directory)`,
      );
    }
    // Read once here, so that a file that cannot be parsed says why as the call's error.
    await readSource(sandbox, real).catch((error) => {
      if (!(error instanceof Unparsable)) throw error;
      throw new ToolError(
        error.tooLarge ? `${error.message}; use grep or read_file on it` : error.message,
      );
    });
    const { files, skipped } = await outlinesOf(sandbox, [real], { signal: ctx.signal });
    if (skipped.length > 0) throw new ToolError(`${shownName(shown)}: ${skipped[0].why}`);
    const rows = files[0].symbols.map((symbol) => row(shown, symbol));
    return listed(`${shownName(shown)} (${languageOf(real)})`, rows, budget, { files: 1 });
  }

  const wanted = args.operation === "find" ? findArguments(args) : undefined;
  const focus = args.operation === "map" ? await focusFiles(sandbox, args.focus ?? []) : [];
  ctx.progress(0, undefined, "listing the files to parse");
  const walked = await walkedSources(sandbox, args.path, ctx.signal, () => ctx.roots());
  // The files in play are parsed with the others, wherever they are: what they use counts.
  const toParse = [...new Set([...walked.files, ...focus])];
  const { files, skipped, parsed } = await outlinesOf(sandbox, toParse, {
    signal: ctx.signal,
    progress: (done, total, message) => ctx.progress(done, total, message),
    store: { stateDir: ctx.state.dir, project: sandbox.base },
  });
  const slice = new TimeSlice();
  if (args.operation === "map") {
    const mapBudget = Math.min(args.max_chars ?? DEFAULT_MAP_CHARS, budget);
    const map = await projectMap(files, new Set(focus), mapBudget, slice);
    const notes = notesOf(walked, files.length, skipped);
    return {
      content: `${map.text}${notes}`,
      structured: {
        symbols: map.shown.map((r) => ({ ...row(r.file.shown, r.symbol), refs: r.refs })),
        total: map.total,
        files: files.length,
        skipped: skipped.length,
        parsed,
        ...(walked.stoppedEarly ? { stoppedEarly: walked.stoppedEarly } : {}),
      },
    };
  }

  const { pattern, offset } = wanted!;
  const matches: SymbolRow[] = [];
  const reals: string[] = [];
  for (const file of files) {
    for (const symbol of file.symbols) {
      if (!matchesName(symbol.namePath, pattern)) continue;
      matches.push(row(file.shown, symbol));
      reals.push(file.real);
    }
    if (slice.due()) await slice.pause();
  }
  const page = matches.slice(offset, offset + FIND_PAGE);
  if (args.include_body) await addBodies(sandbox, page, reals.slice(offset, offset + FIND_PAGE));
  const result = listed(
    `[${matches.length} definition${matches.length === 1 ? "" : "s"} match ${
      JSON.stringify(wanted!.name)
    }${offset > 0 ? `; from ${offset + 1}` : ""}]`,
    page,
    budget,
    {
      files: files.length,
      skipped: skipped.length,
      parsed,
      stoppedEarly: walked.stoppedEarly,
    },
    matches.length,
    offset,
  );
  const notes = notesOf(walked, files.length, skipped);
  if (notes) result.content += notes;
  return result;
}

/** map's files in play, as real paths: each must be a file in a language the parser reads. */
async function focusFiles(sandbox: Sandbox, paths: string[]): Promise<string[]> {
  if (paths.length > MAX_FOCUS) {
    throw new ToolError(
      `focus: at most ${MAX_FOCUS} files (the ones you work on), not ${paths.length}`,
    );
  }
  const reals: string[] = [];
  for (const path of paths) {
    const { real, exists } = await sandbox.resolve(path);
    const shown = shownName(sandbox.display(real));
    if (!exists) throw new ToolError(`focus: ${shown} does not exist`);
    if (!(await sandbox.info(real)).isFile()) {
      throw new ToolError(`focus: ${shown} is not a file (name the files you work on)`);
    }
    if (!languageOf(real)) {
      throw new ToolError(`focus: ${shown} is not in a language the built-in parser knows`);
    }
    reals.push(real);
  }
  return reals;
}

/** find's name pattern and page, checked before any file is read. */
function findArguments(
  args: { name?: string; substring?: boolean; cursor?: string },
): { name: string; pattern: NamePattern; offset: number } {
  if (!args.name) {
    throw new ToolError("find needs `name`: a name or name path such as Class/method");
  }
  const pattern = namePattern(args.name, args.substring ?? false);
  if (pattern.segments.length === 0) throw new ToolError("`name` holds no name (only slashes)");
  const offset = args.cursor === undefined ? 0 : Number(args.cursor);
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new ToolError(`cursor ${JSON.stringify(args.cursor)} is not one this tool gave`);
  }
  return { name: args.name, pattern, offset };
}

function row(path: string, symbol: OutlineSymbol): SymbolRow {
  return {
    path,
    line: symbol.line,
    endLine: symbol.endLine,
    kind: symbol.kind,
    namePath: symbol.namePath,
    signature: symbol.signature,
  };
}

/** Rows as lines under `head`, cut at `budget` characters with the count left out. */
function listed(
  head: string,
  rows: SymbolRow[],
  budget: number,
  extra: { files?: number; skipped?: number; parsed?: number; stoppedEarly?: string },
  total = rows.length,
  offset = 0,
) {
  const lines: string[] = [];
  let chars = head.length;
  let shown = 0;
  for (const r of rows) {
    const line = symbolLine(r);
    if (chars + line.length + 1 > budget && shown > 0) break;
    lines.push(line);
    chars += line.length + 1;
    shown++;
  }
  const next = offset + shown < total ? String(offset + shown) : undefined;
  const more = next === undefined
    ? ""
    : `\n[${total - offset - shown} more: pass cursor "${next}"]`;
  const empty = rows.length === 0 ? "\n[no definitions found]" : "";
  return {
    content: `${head}\n${lines.join("\n")}${empty}${more}`,
    structured: {
      symbols: rows.slice(0, shown),
      total,
      ...(next === undefined ? {} : { cursor: next }),
      ...(extra.files === undefined ? {} : { files: extra.files }),
      ...(extra.skipped ? { skipped: extra.skipped } : {}),
      ...(extra.parsed === undefined ? {} : { parsed: extra.parsed }),
      ...(extra.stoppedEarly ? { stoppedEarly: extra.stoppedEarly } : {}),
    },
  };
}

/** The files to parse: under `path` (a file or directory), or under every root. */
async function walkedSources(
  sandbox: Sandbox,
  path: string | undefined,
  signal: AbortSignal,
  roots: () => Promise<string[]>,
): Promise<Walked> {
  const starts = path === undefined ? await roots() : [path];
  const files: string[] = [];
  let stoppedEarly: string | undefined;
  for (const start of starts) {
    const { real, exists } = await sandbox.resolve(start);
    if (!exists) throw new ToolError(`${shownName(sandbox.display(real))} does not exist`);
    if (!(await sandbox.info(real)).isDirectory()) {
      files.push(real);
      continue;
    }
    const listed = await listSources(sandbox, real, signal);
    files.push(...listed.files);
    stoppedEarly ??= listed.stoppedEarly;
  }
  if (signal.aborted) throw new ToolError("cancelled");
  const unique = [...new Set(files)];
  if (unique.length > MAX_SOURCE_FILES) stoppedEarly ??= `at ${MAX_SOURCE_FILES} source files`;
  return { files: unique.slice(0, MAX_SOURCE_FILES), stoppedEarly };
}

function notesOf(walked: Walked, parsed: number, skipped: { shown: string; why: string }[]) {
  const notes: string[] = [];
  if (walked.stoppedEarly) {
    notes.push(`[the walk stopped early (${walked.stoppedEarly}): use a narrower path]`);
  }
  if (skipped.length > 0) {
    // The example is the first by path: parses finish in any order, the note says the same.
    const first = skipped.reduce((a, b) => (b.shown < a.shown ? b : a));
    notes.push(
      `[${skipped.length} file${skipped.length === 1 ? "" : "s"} not parsed, e.g. ${
        shownName(first.why.includes(first.shown) ? first.why : `${first.shown}: ${first.why}`)
      }]`,
    );
  }
  if (parsed === 0 && walked.files.length === 0) {
    notes.push("[no source files here in a language the built-in parser knows]");
  }
  return notes.length ? `\n${notes.join("\n")}` : "";
}

/** Adds each row's text, read again (capped), from files unchanged since they were parsed. */
async function addBodies(sandbox: Sandbox, rows: SymbolRow[], reals: string[]): Promise<void> {
  const texts = new Map<string, string | undefined>();
  for (const [i, r] of rows.entries()) {
    const real = reals[i];
    if (!texts.has(real)) {
      texts.set(real, await readSource(sandbox, real).then((s) => s.text, () => undefined));
    }
    const text = texts.get(real);
    if (text === undefined) continue;
    const lines = text.split("\n").slice(r.line - 1, r.endLine).join("\n");
    r.body = lines.length > MAX_BODY_CHARS
      ? `${lines.slice(0, MAX_BODY_CHARS)}\n[... cut at ${MAX_BODY_CHARS} characters]`
      : lines;
  }
}
