/** What both of grep's searches (rg and the built-in one) are given, and rules they share. */
import picomatch from "picomatch";
import { ToolError } from "../../../mcp/tool.ts";
import type { Dir } from "../../_lib/sandbox/mod.ts";
import type { IgnoreRules } from "../../_lib/walk/gitignore.ts";
import type { CompiledPattern } from "./grep_pattern.ts";
import type { OutputMode } from "./grep_report.ts";
import { bytes } from "../../_lib/text/units.ts";

/** Larger files are skipped: they are logs and data, and reading one would stall the call. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface NameFilter {
  /** Whether a file (path relative to the searched directory) is searched. */
  matches(rel: string): boolean;
  /** The same filter as an rg type glob (file names only), when it can be one. */
  rgType?: string;
}

/**
 * The `glob` argument: without a slash it matches file names at any depth (`*.ts`), with one the
 * path from the searched directory (`src/**\/*.ts`); `*` matches dotfiles too; `!` negates.
 */
export function nameFilter(glob: string): NameFilter {
  const normalized = glob.replace(/^\.?\//, "");
  const hasSlash = normalized.includes("/");
  // picomatch's basename option compares the last segment only: a glob with a slash never matched.
  const matches = picomatch(normalized, { dot: true, basename: !hasSlash });
  // Simple name globs mean the same to rg; anything else is left to the check on rg's results.
  const simple = !hasSlash && !normalized.includes("**") && /^[\w.*{},~ -]+$/.test(normalized);
  return { matches, rgType: simple ? normalized : undefined };
}

export interface GrepSearch {
  /** Where rg runs and the walk starts: the searched directory, or the named file's directory. */
  dir: string;
  /** A file named on its own (real path): only it is searched, whatever ignore rules and glob say. */
  file?: string;
  /**
   * `dir` opened beneath its root (Sandbox.directory): the built-in search walks it and opens a
   * named file in it, and rg runs in it, so a directory swapped for a link meanwhile is not
   * searched. Without it (tests), `dir` is used by path.
   */
  within?: Dir;
  /** How the searched path reads in messages. */
  label: string;
  pattern: CompiledPattern;
  multiline: boolean;
  caseInsensitive: boolean;
  mode: OutputMode;
  before: number;
  after: number;
  filter?: NameFilter;
  /** The ignore rules of the directory's parents inside the sandbox root. */
  rulesAbove: IgnoreRules;
  /** Date.now() after which the search stops. */
  deadline: number;
  /** Aborted on cancellation: the search stops and reports nothing more. */
  signal: AbortSignal;
  /**
   * Whether the built-in matcher may run the pattern (it cannot backtrack for ever): rg's answer
   * for a file its held content disagrees with is then searched again by it.
   */
  builtinMayRun?: boolean;
  /**
   * Whether the report shows nothing more (GrepReport.full): the built-in search then counts
   * content lines without carrying their text.
   */
  reportFull?: () => boolean;
  /** rg runs under this cap on its data segment, in bytes (grep_rg_guard.ts). */
  rgDataLimit?: number;
  /** rg runs without --max-filesize: the guard looks for files over the limit (grep_rg_beside.ts). */
  rgWithoutSizeLimit?: boolean;
  /** Set when the search ended before it was complete. */
  stopped?: string;
  /** Set when some files could not be read, so the results may miss some. */
  unreadable?: boolean;
}

export function binaryFileError(label: string, kind: string): ToolError {
  return new ToolError(`${label} is a binary file (${kind}); grep searches text`);
}

export function tooLargeError(label: string, size: number): ToolError {
  return new ToolError(
    `${label} is ${bytes(size)}, over grep's ${
      bytes(MAX_FILE_BYTES)
    } limit: read it in parts with read_file instead`,
  );
}
