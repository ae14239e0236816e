import { dirname } from "node:path";
import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { shownName } from "../_lib/text/shown_name.ts";
import { sniff } from "../_lib/text/file_sniff.ts";
import { IgnoreRules } from "../_lib/walk/gitignore.ts";
import { Sandbox, skippedIgnoreNote } from "../_lib/sandbox/mod.ts";
import { chooseEngine } from "./_lib/grep/choose_engine.ts";
import { sandboxFor } from "../_lib/confine/mod.ts";
import type { GrepOutcome } from "./_lib/grep/engine.ts";
import { compilePattern } from "./_lib/grep/pattern.ts";
import { GrepReport, type OutputMode } from "./_lib/grep/report.ts";
import {
  binaryFileError,
  type GrepQuery,
  MAX_FILE_BYTES,
  nameFilter,
  tooLargeError,
} from "./_lib/grep/query.ts";
import { pathOrRootProperty } from "../_lib/declarations/path_properties.ts";
import { quoted } from "../../config/quote.ts";

const TIME_LIMIT_MS = 30_000;
const MAX_CONTEXT = 50;
/**
 * Characters of a pattern at most. Checking and translating one is done on the main thread, in
 * time that grows with its length (a 4 MiB pattern held the server a second), and rg takes it as
 * one argument, which Linux limits to 128 KiB, translated.
 */
const MAX_PATTERN_CHARS = 10_000;

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
  description: "Searches file contents for a regular expression, in a directory or one file. " +
    "output_mode: files_with_matches, content (path:line:text; `before`/`after` context as " +
    "path-line-text, -- between groups), count. Sorted by path, then line. JavaScript regular " +
    "expressions without lookaround or backreferences (\\d \\w \\b ASCII); a line is matched " +
    "without its line break (`.` never matches it; \\r is refused) unless `multiline`. UTF-8 " +
    "(UTF-16 with a BOM). `glob`: `*.ts` matches names at any depth, `src/**/*.ts` paths from " +
    "the searched directory. Skips binary files, files over 10 MB, .git, node_modules and what " +
    ".gitignore/.rgignore exclude; hidden files are searched; links are not followed. Output " +
    "stops at 30,000 characters (or `head_limit` entries) and says how much was left. Uses " +
    "ripgrep when there is one, else its own search (same results; it refuses nested quantifiers " +
    "like (a+)+).",
  annotations: READ_ONLY,
  // A search of a large tree can take a while.
  taskSupport: "optional",
  input: {
    type: "object",
    properties: {
      pattern: { type: "string", minLength: 1, maxLength: MAX_PATTERN_CHARS },
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
      case_insensitive: { type: "boolean", description: "Ignore case." },
      multiline: {
        type: "boolean",
        description: "Let matches span lines; `.` then matches newlines too.",
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
      files: { type: "integer" },
      lines: {
        type: ["integer", "null"],
        description: "matching lines (null in files_with_matches mode)",
      },
      shown: { type: "integer" },
      omitted: { type: "integer", description: "entries left out by head_limit or the size cap" },
      stoppedEarly: {
        type: ["string", "null"],
        description: "why the search stopped before the end, if it did",
      },
    },
    required: ["mode", "files", "lines", "shown", "omitted", "stoppedEarly"],
    additionalProperties: false,
  },

  run: grepFiles,
});

/** What the model asked grep for. */
interface GrepArgs {
  pattern: string;
  path?: string;
  glob?: string;
  output_mode?: "files_with_matches" | "content" | "count";
  before?: number;
  after?: number;
  case_insensitive?: boolean;
  multiline?: boolean;
  head_limit?: number;
}

/** Searches the files under `path` for the pattern; shows the matching files, lines or counts. */
async function grepFiles(args: GrepArgs, ctx: ToolContext) {
  const mode: OutputMode = args.output_mode ?? "files_with_matches";
  const multiline = args.multiline ?? false;
  const caseInsensitive = args.case_insensitive ?? false;
  const pattern = compilePattern(args.pattern, { caseInsensitive, multiline });
  const engine = chooseEngine();
  engine.check(args.pattern, caseInsensitive);
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
  const before = mode === "content" ? args.before ?? 0 : 0;
  const after = mode === "content" ? args.after ?? 0 : 0;
  const report = new GrepReport({
    mode,
    headLimit: args.head_limit,
    maxChars: ctx.config.limits.outputChars,
    context: before > 0 || after > 0,
    display,
  });
  // One named file is searched whatever the ignore rules and glob say.
  const dir = named ? dirname(target.real) : target.real;
  // Searched beneath its root (beneath.ts): a directory swapped for a link since is not.
  const within = (await sandbox.directory(dir)).dir;
  // rg and find run confined too: read-only, no network, the credentials hidden.
  const { confinement } = await sandboxFor(ctx, "search");
  let outcome: GrepOutcome;
  try {
    const query: GrepQuery = {
      dir,
      file: named ? target.real : undefined,
      within,
      label: requested,
      pattern,
      multiline,
      caseInsensitive,
      mode,
      before,
      after,
      filter: !named && args.glob ? nameFilter(args.glob) : undefined,
      rulesAbove,
      deadline,
      signal: ctx.signal,
      roots: {
        contains: (real) => sandbox.contains(real),
        open: (real) => sandbox.openForReading(real),
        display,
      },
      confinement,
    };
    outcome = await engine.search(query, report);
  } finally {
    await within.close();
  }
  const notes: string[] = [];
  if (outcome.unreadable) {
    notes.push("[some files could not be read: the results may miss matches in them]");
  }
  const skipped = skippedIgnoreNote(rulesAbove.skipped, display);
  if (skipped) notes.push(skipped);
  const { text, summary } = report.finish(display(target.real), outcome.stopped, notes);
  return { content: text, structured: summary };
}
