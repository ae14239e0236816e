import { dirname } from "node:path";
import process from "node:process";
import { defineTool, ToolError } from "../../mcp/tool.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { shownName } from "../_lib/text/shown_name.ts";
import { sniff } from "../_lib/text/file_sniff.ts";
import { IgnoreRules } from "../_lib/walk/gitignore.ts";
import { Sandbox, type SkippedIgnoreFile, skippedIgnoreNote } from "../_lib/sandbox/mod.ts";
import { backtrackingRisk } from "./_lib/grep_backtracking.ts";
import { builtinSearch } from "./_lib/grep_builtin.ts";
import { compilePattern } from "./_lib/grep_pattern.ts";
import { GrepReport, type OutputMode } from "./_lib/grep_report.ts";
import { ripgrepBatches } from "./_lib/grep_ripgrep.ts";
import { guardBesideRg, guardFindings } from "./_lib/grep_rg_guard.ts";
import { searchBesideGuard } from "./_lib/grep_rg_beside.ts";
import { findRipgrep } from "./_lib/ripgrep_path.ts";
import {
  binaryFileError,
  type GrepSearch,
  MAX_FILE_BYTES,
  nameFilter,
  tooLargeError,
} from "./_lib/grep_search.ts";
import { pathOrRootProperty } from "../_lib/declarations/path_properties.ts";
import { quoted } from "../../config/quote.ts";

const TIME_LIMIT_MS = 30_000;
const MAX_CONTEXT = 50;

/**
 * Which search runs: TOOLHOST_GREP=rg or =builtin forces one (tests compare them); otherwise rg
 * when there is one, on PATH or beside the executable (ripgrep_path.ts).
 */
function chooseSearch(): string | undefined {
  const choice = process.env.TOOLHOST_GREP;
  if (choice === "builtin") return undefined;
  const rg = findRipgrep();
  if (choice === "rg" && !rg) {
    throw new ToolError(
      "TOOLHOST_GREP=rg is set but there is no rg on PATH or beside toolhost: install ripgrep " +
        "or unset it",
    );
  }
  return rg;
}

/**
 * The built-in search refuses patterns that could backtrack for ever; rg takes them all. `why`
 * says why the built-in search is used, and what would let rg run instead.
 */
function refuseSlowPattern(
  pattern: string,
  caseInsensitive: boolean,
  why = "used when there is no rg",
  instead = "or install ripgrep (rg), which runs any pattern in linear time",
): void {
  const risk = backtrackingRisk(pattern, caseInsensitive);
  if (!risk) return;
  throw new ToolError(
    `pattern ${quoted(pattern, 200)} ${risk}, which can take grep's built-in search ` +
      `(${why}) exponential time. Write it without repeating such a ` +
      `group (for example [ab]+ for (a|b)+, \\w+ for (\\w+)+), ${instead}`,
  );
}

/**
 * Whether rg may search, given the ignore files the guard found it cannot read: if there are any,
 * the built-in search answers instead (refusing a pattern only rg may run, saying why).
 */
function fallBackIfOdd(
  odd: SkippedIgnoreFile[],
  args: { pattern: string },
  caseInsensitive: boolean,
  display: (path: string) => string,
): boolean {
  if (odd.length === 0) return true;
  refuseSlowPattern(
    args.pattern,
    caseInsensitive,
    `used instead of rg here, as rg would hang on or misread the ignore file ` +
      `${display(odd[0].path)}, which ${odd[0].why}`,
    "or search a directory without such ignore files",
  );
  return false;
}

/** A file named in `path` must be text within the size limit: say so rather than find nothing. */
async function checkNamedFile(sandbox: Sandbox, path: string, label: string): Promise<void> {
  const handle = await sandbox.openForReading(path);
  try {
    const { size } = await handle.stat();
    if (size > MAX_FILE_BYTES) throw tooLargeError(label, size);
    const head = await sniff(handle);
    if (head.kind !== "text") throw binaryFileError(label, head.description);
    // A NUL byte further on makes it binary too: found here, both searches refuse it alike
    // (rg would say so only when the file also had a match).
    const bytes = await handle.readFile();
    const text = new TextDecoder(head.encoding).decode(bytes.subarray(head.bomBytes));
    if (text.includes("\0")) throw binaryFileError(label, "text with NUL bytes");
  } finally {
    await handle.close();
  }
}

export default defineTool({
  name: "grep",
  title: "Search file contents",
  description:
    "Searches file contents for a regular expression under a directory (default: the first " +
    "allowed root) or in one file. output_mode: files_with_matches (default), content " +
    "(path:line:text; `before`/`after` context as path-line-text, -- between groups), count. " +
    "Sorted by path, then line. JavaScript regular expressions without lookaround or " +
    "backreferences (\\d \\w \\b ASCII); a line is matched without its line break (`.` never " +
    "matches it; \\r is refused) unless `multiline`, where matches span lines. UTF-8 (UTF-16 " +
    "with a BOM). `glob`: `*.ts` matches names at any depth, `src/**/*.ts` paths from the " +
    "searched directory. Skips binary files, files over 10 MB, .git, node_modules and what " +
    ".gitignore/.rgignore exclude; hidden files are searched; links are not followed. Output " +
    "stops at 30,000 characters (or `head_limit` entries) and says how much was left. Uses " +
    "ripgrep when there is one, else its own search (same results; it refuses nested " +
    "quantifiers like (a+)+).",
  annotations: READ_ONLY,
  // A search of a large tree can take a while.
  taskSupport: "optional",
  input: {
    type: "object",
    properties: {
      pattern: { type: "string", minLength: 1, description: "Regular expression to search for." },
      path: pathOrRootProperty("File or directory to search"),
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
    let rg = chooseSearch();
    if (!rg) refuseSlowPattern(args.pattern, caseInsensitive);
    const deadline = Date.now() + TIME_LIMIT_MS;
    const sandbox = await Sandbox.of(ctx);
    // Every name grep writes is shown safe (shown_name.ts): a newline in one cannot add lines.
    const display = (path: string) => shownName(sandbox.display(path));
    const requested = args.path ?? ".";
    const target = await sandbox.resolve(requested);
    const info = target.exists ? await sandbox.info(target.real) : undefined;
    if (!info) throw new ToolError(`${quoted(requested)} does not exist`);
    if (!info.isFile() && !info.isDirectory()) {
      throw new ToolError(`${quoted(requested)} is neither a file nor a directory`);
    }
    const named = info.isFile();
    if (named) await checkNamedFile(sandbox, target.real, requested);
    const rulesAbove = named ? IgnoreRules.empty() : await IgnoreRules.above(sandbox, target.real);
    // rg would wait on a FIFO .gitignore (or read /dev/zero, or rules from out of the roots):
    // the built-in search skips such files, says so, and gives the answer rg should have.
    // The guard that finds them runs beside rg where it can (grep_rg_guard.ts), else first.
    const stopGuard = new AbortController();
    // Beside rg, it also looks for files over the size limit, so rg need not stat every file.
    const guard = rg && !named
      ? guardFindings(
        target.real,
        (real) => sandbox.contains(real),
        (real) => sandbox.openForReading(real),
        deadline,
        AbortSignal.any([ctx.signal, stopGuard.signal]),
        guardBesideRg() ? MAX_FILE_BYTES : undefined,
      )
      : undefined;
    guard?.catch(() => {}); // awaited below; a failure while rg runs must not go unhandled
    if (
      guard && !guardBesideRg() && !fallBackIfOdd((await guard).odd, args, caseInsensitive, display)
    ) rg = undefined;
    const search: GrepSearch = {
      // One named file is searched whatever the ignore rules and glob say.
      dir: named ? dirname(target.real) : target.real,
      file: named ? target.real : undefined,
      label: requested,
      pattern,
      multiline,
      caseInsensitive,
      mode,
      before: mode === "content" ? args.before ?? 0 : 0,
      after: mode === "content" ? args.after ?? 0 : 0,
      filter: !named && args.glob ? nameFilter(args.glob) : undefined,
      rulesAbove,
      deadline,
      signal: ctx.signal,
      builtinMayRun: !backtrackingRisk(args.pattern, caseInsensitive),
      reportFull: () => report.full,
    };
    const report = new GrepReport({
      mode,
      headLimit: args.head_limit,
      maxChars: ctx.config.limits.outputChars,
      context: search.before > 0 || search.after > 0,
      display,
    });
    // Searched beneath its root (beneath.ts): a directory swapped for a link since is not.
    search.within = (await sandbox.directory(search.dir)).dir;
    try {
      if (rg && guard && guardBesideRg()) {
        const guarded = await searchBesideGuard(rg, search, guard, (file) => report.add(file));
        if (!fallBackIfOdd(guarded, args, caseInsensitive, display)) rg = undefined;
      } else if (rg) {
        for await (const batch of ripgrepBatches(rg, search)) {
          for (const file of batch) report.add(file);
        }
      }
      if (!rg) {
        search.signal = ctx.signal;
        for await (const file of builtinSearch(search)) report.add(file);
      }
    } finally {
      stopGuard.abort();
      await search.within.close();
    }
    const notes: string[] = [];
    if (search.unreadable) {
      notes.push("[some files could not be read: the results may miss matches in them]");
    }
    const skipped = skippedIgnoreNote(rulesAbove.skipped, display);
    if (skipped) notes.push(skipped);
    const { text, summary } = report.finish(display(target.real), search.stopped, notes);
    return { content: text, structured: summary };
  },
});
