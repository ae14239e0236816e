/** What both of grep's searches (rg and the built-in one) are given, and rules they share. */
import picomatch from "picomatch";
import type { IgnoreRules } from "./gitignore.ts";
import type { CompiledPattern } from "./grep_pattern.ts";
import type { OutputMode } from "./grep_report.ts";

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
  const matches = picomatch(normalized, { dot: true, basename: true });
  // Simple name globs mean the same to rg; anything else is left to the check on rg's results.
  const simple = !normalized.includes("/") && !normalized.includes("**") &&
    /^[\w.*{},~ -]+$/.test(normalized);
  return { matches, rgType: simple ? normalized : undefined };
}

export interface GrepSearch {
  /** The real path of the directory to search. */
  dir: string;
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
  signal: AbortSignal;
  /** ToolContext.onAbort: runs a listener on cancellation, or at once if that already came. */
  onAbort(listener: () => void): () => void;
  /** Set when the search ended before it was complete. */
  stopped?: string;
}
