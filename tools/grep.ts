import { stat } from "node:fs/promises";
import process from "node:process";
import { defineTool, ToolError } from "../mcp/tool.ts";
import { IgnoreRules } from "./_lib/gitignore.ts";
import { builtinSearch, readText, searchText } from "./_lib/grep_builtin.ts";
import { compilePattern } from "./_lib/grep_pattern.ts";
import { type FileMatches, GrepReport, type OutputMode } from "./_lib/grep_report.ts";
import { findRipgrep, ripgrepSearch } from "./_lib/grep_ripgrep.ts";
import { type GrepSearch, MAX_FILE_BYTES, nameFilter } from "./_lib/grep_search.ts";
import { Sandbox } from "./_lib/sandbox.ts";
import { bytes } from "./_lib/units.ts";
import { READ_ONLY } from "./_lib/annotations.ts";

const OUTPUT_CAP_CHARS = 30_000;
const TIME_LIMIT_MS = 30_000;
const MAX_CONTEXT = 50;

/**
 * Which search runs: TOOLHOST_GREP=rg or =builtin forces one (tests compare them); otherwise rg
 * when it is on PATH.
 */
function chooseSearch(): string | undefined {
  const choice = process.env.TOOLHOST_GREP;
  if (choice === "builtin") return undefined;
  const rg = findRipgrep();
  if (choice === "rg" && !rg) {
    throw new ToolError(
      "TOOLHOST_GREP=rg is set but rg is not on PATH: install ripgrep or unset it",
    );
  }
  return rg;
}

export default defineTool({
  name: "grep",
  title: "Search file contents",
  description:
    "Searches file contents for a regular expression, under a directory (default: the first " +
    "allowed root) or in one file. Use it to find where something is defined or used. " +
    "output_mode: files_with_matches (default: the paths), content (matching lines as " +
    "path:line:text, with `before`/`after` context lines as path-line-text and -- between " +
    "groups), count (path:matching lines). Results are sorted by path, then line. " +
    "Patterns are JavaScript regular expressions without lookaround or backreferences " +
    "(\\d \\w \\b are ASCII; `.` and [^...] never match a line break unless multiline is set, " +
    "which also lets matches span lines and makes `.` match newlines). `glob` filters files: " +
    "`*.ts` matches names at any depth, `src/**/*.ts` paths from the searched directory. " +
    "Skips binary files, files over 10 MB, .git, node_modules and what .gitignore files " +
    "exclude; hidden files are searched; symbolic links are not followed. Output stops at " +
    "30,000 characters (or head_limit entries) and says how much was left; lines over 500 " +
    "characters are cut around their first match. Uses ripgrep when installed, else its own " +
    "search, with the same results.",
  annotations: READ_ONLY,
  input: {
    type: "object",
    properties: {
      pattern: { type: "string", minLength: 1, description: "Regular expression to search for." },
      path: {
        type: "string",
        description: "File or directory to search (default: the first allowed root).",
      },
      glob: {
        type: "string",
        minLength: 1,
        description: "Only files matching this glob, e.g. *.ts, src/**/*.{ts,tsx}, !*.test.ts.",
      },
      output_mode: {
        type: "string",
        enum: ["files_with_matches", "content", "count"],
        description: "What to return (default files_with_matches).",
      },
      before: {
        type: "integer",
        minimum: 0,
        maximum: MAX_CONTEXT,
        description: "Lines of context before each match (content mode).",
      },
      after: {
        type: "integer",
        minimum: 0,
        maximum: MAX_CONTEXT,
        description: "Lines of context after each match (content mode).",
      },
      case_insensitive: { type: "boolean", description: "Ignore case (default false)." },
      multiline: {
        type: "boolean",
        description: "Let matches span lines; `.` then matches newlines too (default false).",
      },
      head_limit: {
        type: "integer",
        minimum: 1,
        description: "Show at most this many entries (paths, lines or counts).",
      },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      mode: { type: "string", enum: ["files_with_matches", "content", "count"] },
      files: { type: "integer", description: "files with matches" },
      lines: {
        type: ["integer", "null"],
        description: "matching lines (null in files_with_matches mode)",
      },
      shown: { type: "integer", description: "entries shown" },
      omitted: { type: "integer", description: "entries left out by head_limit or the size cap" },
      stoppedEarly: {
        type: ["string", "null"],
        description: "why the search stopped before the end, if it did",
      },
    },
    required: ["mode", "files", "lines", "shown", "omitted", "stoppedEarly"],
    additionalProperties: false,
  },

  async run(args, ctx) {
    const mode: OutputMode = args.output_mode ?? "files_with_matches";
    const multiline = args.multiline ?? false;
    const caseInsensitive = args.case_insensitive ?? false;
    const pattern = compilePattern(args.pattern, { caseInsensitive, multiline });
    const sandbox = await Sandbox.of(ctx);
    const requested = args.path ?? ".";
    const target = await sandbox.resolve(requested);
    const info = target.exists ? await stat(target.real) : undefined;
    if (!info) throw new ToolError(`${JSON.stringify(requested)} does not exist`);
    const report = new GrepReport({
      mode,
      headLimit: args.head_limit,
      maxChars: OUTPUT_CAP_CHARS,
      context: mode === "content" && ((args.before ?? 0) > 0 || (args.after ?? 0) > 0),
      display: (path) => sandbox.display(path),
    });
    const textSearch = {
      pattern,
      multiline,
      mode,
      before: mode === "content" ? args.before ?? 0 : 0,
      after: mode === "content" ? args.after ?? 0 : 0,
    };
    let stoppedEarly: string | undefined;

    if (info.isFile()) {
      // One named file: searched whatever the ignore rules and glob say; rg would add nothing.
      const read = await readText(target.real).catch((error: Error) => {
        throw new ToolError(`cannot read ${requested}: ${error.message}`);
      });
      if ("binary" in read) {
        throw new ToolError(`${requested} is a binary file (${read.binary}); grep searches text`);
      }
      if ("tooLarge" in read) {
        throw new ToolError(
          `${requested} is ${bytes(read.tooLarge)}, over grep's ${
            bytes(MAX_FILE_BYTES)
          } limit: read it in parts with read_file instead`,
        );
      }
      report.add(searchText(target.real, read.text, textSearch));
    } else if (info.isDirectory()) {
      const search: GrepSearch = {
        ...textSearch,
        dir: target.real,
        caseInsensitive,
        filter: args.glob ? nameFilter(args.glob) : undefined,
        rulesAbove: await IgnoreRules.above(sandbox.roots, target.real),
        deadline: Date.now() + TIME_LIMIT_MS,
        signal: ctx.signal,
        onAbort: (listener) => ctx.onAbort(listener),
      };
      const rg = chooseSearch();
      const files: AsyncGenerator<FileMatches> = rg
        ? ripgrepSearch(rg, search)
        : builtinSearch(search);
      for await (const file of files) report.add(file);
      stoppedEarly = search.stopped;
    } else {
      throw new ToolError(`${requested} is neither a file nor a directory`);
    }
    const { text, summary } = report.finish(sandbox.display(target.real), stoppedEarly);
    return { content: text, structured: summary };
  },
});
